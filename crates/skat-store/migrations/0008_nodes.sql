-- Replicas and their leases: a replica with a node id registers here on start (a new
-- epoch each time) and renews its lease with every journal commit and every few seconds.
-- When a lease runs out, a live replica bumps the epoch and takes the replica's waiting
-- and playing tables over (`skat_tables.owner`); the old epoch can then write nothing,
-- since every commit of the journal first renews the lease of the epoch it holds.

CREATE TABLE skat_nodes (
    node           TEXT PRIMARY KEY,
    epoch          BIGINT NOT NULL,     -- 1 on the first start, +1 on each start and takeover
    lease_until_ms BIGINT NOT NULL,     -- the lease ends then unless renewed (Unix ms, the replica's clock)
    started_ms     BIGINT NOT NULL
);
