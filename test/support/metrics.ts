export {
  localMetrics as testMetrics,
  type Point,
  pointsNamed,
} from "@quiesce/functions";
