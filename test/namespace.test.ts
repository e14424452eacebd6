// A local cluster's namespace: named and detached actors shared across its jobs.
import { namespaceSuite } from "./namespace-suite.ts";

namespaceSuite("local");
