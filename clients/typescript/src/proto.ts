// Loads skat.v1 from the repository's proto/ at run time (no generated code to keep in sync).

import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

export const PROTO_ROOT = path.resolve(__dirname, "..", "..", "..", "..", "proto");

const definition = protoLoader.loadSync(path.join(PROTO_ROOT, "skat", "v1", "skat.proto"), {
  includeDirs: [PROTO_ROOT],
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const loaded = grpc.loadPackageDefinition(definition) as any;

/** The generated client constructor for skat.v1.SkatService. */
export const SkatService: typeof grpc.Client = loaded.skat.v1.SkatService;

/** Creates a client for host:port (plaintext). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function connect(address: string): any {
  return new SkatService(address.replace(/^http:\/\//, ""), grpc.credentials.createInsecure());
}

/** Calls a unary RPC as a promise. */
export function call<T>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  client: any,
  method: string,
  request: object,
  metadata?: grpc.Metadata,
): Promise<T> {
  return new Promise((resolve, reject) => {
    client[method](request, metadata ?? new grpc.Metadata(), (err: grpc.ServiceError | null, res: T) =>
      err ? reject(err) : resolve(res),
    );
  });
}

/** Metadata carrying a seat token. */
export function bearer(token: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set("authorization", `Bearer ${token}`);
  return md;
}
