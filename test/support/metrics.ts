export {
  localMetrics as testMetrics,
  type Point,
  pointsNamed,
} from "../../functions/src/telemetry/local";
