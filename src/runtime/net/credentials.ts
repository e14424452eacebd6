// What a connection must prove. The shared token — from FRAY_TOKEN (or a
// token file read by the CLI), never a command line; a client without one
// makes a random token for itself and the workers it starts, which get it
// through their environment. A process that joins a cluster's namespace with
// another token (useToken) holds both: it accepts either, and dials a peer
// with the one it accepts. And optionally mutual TLS: TCP connections then
// also need a certificate signed by the shared CA (FRAY_TLS_CA, FRAY_TLS_CERT,
// FRAY_TLS_KEY: file paths).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { config, settingName } from "../base/config.ts";

let token: string | null = null;

export function sessionToken(): string {
  return (token ??= config.token ?? randomBytes(32).toString("hex"));
}

/** Whether this process has its token yet (given, from FRAY_TOKEN, or made at its first connection). */
export function hasToken(): boolean {
  return token !== null || config.token !== undefined;
}

/** Environment that gives a worker this process's token (and TLS files). */
export function tokenEnv(): Record<string, string> {
  const env: Record<string, string> = { [settingName("token")]: sessionToken() };
  if (tlsFiles) Object.assign(env, { [settingName("tlsCa")]: tlsFiles.ca, [settingName("tlsCert")]: tlsFiles.cert, [settingName("tlsKey")]: tlsFiles.key });
  return env;
}

/** Paths of the PEM files for mutual TLS. */
export interface TlsFiles {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export interface TlsMaterial {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

let tlsFiles: TlsFiles | null = null;
let tlsMaterial: TlsMaterial | null | undefined;

/** Uses mutual TLS with these files for every TCP connection of this process. */
export function useTls(files: TlsFiles): void {
  tlsFiles = files;
  tlsMaterial = undefined;
}

/** The TLS material in force, from useTls or FRAY_TLS_*; null when TLS is off. */
export function tls(): TlsMaterial | null {
  if (tlsMaterial !== undefined) return tlsMaterial;
  const { tlsCa: ca, tlsCert: cert, tlsKey: key } = config;
  if (!tlsFiles && ca && cert && key) tlsFiles = { ca, cert, key };
  if (!tlsFiles) return (tlsMaterial = null);
  const read = (what: string, path: string) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read the TLS ${what} at ${path}: ${(err as Error).message}; make them with 'fray certs --out DIR'`, { cause: err });
    }
  };
  return (tlsMaterial = { ca: read("CA certificate", tlsFiles.ca), cert: read("certificate", tlsFiles.cert), key: read("key", tlsFiles.key) });
}

/**
 * Uses `given` as this process's token, or, once it has one (given, or made at its first connection or mesh), as a
 * further token it also accepts and dials with: a process that started workers of its own can then join a
 * cluster's namespace, whose processes share another token, and speak to each with its own.
 */
export function useToken(given: string): void {
  if (!given) throw new TypeError(`the token is empty; give the shared token of the workers (${settingName("token")} or --token-file)`);
  if (token === null) token = given;
  else if (token !== given && !joined.includes(given)) joined.push(given);
}

/** Tokens this process holds besides its own (useToken): it accepts connections proving any of them. */
const joined: string[] = [];
/** The token each peer address accepted, once one other than ours did. */
const peerTokens = new Map<string, string>();

/** Every token a peer may prove to this process: its own first. */
export function acceptedTokens(): readonly string[] {
  return joined.length ? [sessionToken(), ...joined] : [sessionToken()];
}

/** The tokens to dial `addr` with, in order: the one it accepted before, else this process's own, then the others. */
export function tokensFor(addr: string): readonly string[] {
  const known = peerTokens.get(addr);
  const all = acceptedTokens();
  return known ? [known, ...all.filter((t) => t !== known)] : all;
}

/** `addr` accepted `used`: dial it with that one next time. */
export function tokenAccepted(addr: string, used: string): void {
  if (used !== sessionToken()) peerTokens.set(addr, used);
  else peerTokens.delete(addr);
}
