/**
 * @deprecated The old subpath of `@quiesce/protocol/published`, under the names it had before the
 * glossary (docs/coordinator.md, "Glossary": published events are not the control plane). Kept
 * only so that importers elsewhere compile until they move; import from `/published` instead.
 */
import { PublishedEventStatus } from "../published";

export type { PublishedObservation as ControlPlaneObservation } from "../published";
export * from "../published";

/** @deprecated PublishedEventStatus. */
export const ControlPlaneEventStatus = PublishedEventStatus;
/** @deprecated PublishedEventStatus. */
export type ControlPlaneEventStatus = PublishedEventStatus;
