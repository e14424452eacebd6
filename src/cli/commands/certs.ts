// `fray certs`: a shared token and a self-signed CA with one certificate for
// every node (used both to serve and to connect), made with openssl.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Certs {
  readonly token: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export function makeCerts(dir: string, days = 365): Certs {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => {
    try {
      execFileSync("openssl", args, { stdio: "pipe" });
    } catch (err) {
      throw new Error(`openssl ${args[0]} failed (is openssl installed?): ${(err as { stderr?: Buffer }).stderr?.toString() ?? (err as Error).message}`, {
        cause: err,
      });
    }
  };
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", String(days), "-subj", "/CN=fray-ca");
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("node.key"), "-out", path("node.csr"), "-subj", "/CN=fray-node");
  writeFileSync(path("node.ext"), "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n");
  openssl(
    "x509",
    "-req",
    "-in",
    path("node.csr"),
    "-CA",
    path("ca.pem"),
    "-CAkey",
    path("ca.key"),
    "-CAcreateserial",
    "-out",
    path("node.pem"),
    "-days",
    String(days),
    "-extfile",
    path("node.ext"),
  );
  writeFileSync(path("token"), randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
  for (const f of ["ca.key", "node.key"]) chmodSync(path(f), 0o600);
  return { token: path("token"), ca: path("ca.pem"), cert: path("node.pem"), key: path("node.key") };
}
