-- Listings show each table's standings: Seeger-Fabian totals by seat.
ALTER TABLE skat_tables ADD COLUMN scores TEXT NOT NULL DEFAULT '[]';   -- JSON array of Seeger-Fabian totals, by seat
