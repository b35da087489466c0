import { z } from "zod";

// Control characters have no place in any Azure name, and Table Storage forbids them in keys.
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/** A cluster is the operator's unit of policy: one availability set, scale set or several. */
export const ClusterName = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/,
    "cluster must be 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );
export type ClusterName = z.infer<typeof ClusterName>;

export const VmName = z
  .string()
  .min(1)
  .max(256)
  .regex(NO_CONTROL_CHARS, "VM name must not contain control characters");

export const EventIdText = z
  .string()
  .min(1)
  .max(128)
  .regex(NO_CONTROL_CHARS, "EventId must not contain control characters");

export const IsoTime = z.iso.datetime({ offset: true });
