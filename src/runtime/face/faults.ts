// The runtime's face for fault points, a testing hook (docs/faults.md, "Fault points"): the points compiled into
// fray, how FRAY_FAULT_POINTS is read, and the calls that mark a point (or a timer's) in code above the runtime.
export {
  connectionFault,
  FAULT_POINTS,
  faultPoint,
  FaultPointError,
  parseFaultPoints,
  timerFired,
  type FaultAction,
  type FaultPointName,
} from "../base/fault-points.ts";
