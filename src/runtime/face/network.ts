// The runtime's face for the network: addresses, ports to listen on, and the credentials (token, TLS)
// links between processes are made with.
export { connectOptions, freePort, parseAddress, tcpHostPort, workerOf } from "../net/address.ts";
export { hasToken, sessionToken, useTls, useToken, type TlsFiles } from "../net/credentials.ts";
export { listenOnFirstFree, randomSimulatorPort, SIMULATOR_PORTS } from "../net/tcp-ports.ts";
export { isUnreachable } from "../base/errors.ts";
