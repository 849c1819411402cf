// The page's one connection to the server: gRPC-Web (Connect-Web) to the origin that
// served the page, the same skat.v1 service the bots use.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { SkatService } from "./gen/skat/v1/skat_pb";

export const api = createClient(SkatService, createGrpcWebTransport({ baseUrl: location.origin }));
