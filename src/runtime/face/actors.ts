// The runtime's face for actors and what reaches them: the actors of this process, their endpoints,
// calls to them, and ports where replies and channel values go.
export { ACTORS, sendSpawn } from "../actors/actor-table.ts";
export { checkArity, checkMethodArity, functionLabel } from "../actors/arity.ts";
export { BUILTIN_PREFIX, registerBuiltinEndpoint } from "../actors/builtin-endpoints.ts";
export { ENDPOINT_OPTIONS, endpointNames, endpointOptions, type EndpointOptions, type NotEndpointName } from "../actors/endpoint-options.ts";
export { CALLS, type CallGroup } from "../calls/calls.ts";
export type { CallFields, PortRef, RawExtent } from "../base/messages.ts";
export { openChannel, Port, PortReceiver, sendEncodedToPort } from "../ports/port.ts";
