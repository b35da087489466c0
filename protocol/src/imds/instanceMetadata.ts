import { z } from "zod";

export const INSTANCE_METADATA_API_VERSION = "2021-02-01";

/**
 * `/metadata/attested/document`: 2021-02-01 signs vmId, subscriptionId and sku (added in
 * 2019-04-30 and 2019-11-01), everything the coordinator checks; the same version as the
 * instance metadata read keeps the relay on one version IMDS has served for years.
 */
export const ATTESTED_API_VERSION = "2021-02-01";

/** The part of `/metadata/instance` (api-version 2021-02-01) the relay needs, as IMDS serves it. */
export const InstanceMetadata = z.looseObject({
  compute: z.looseObject({
    name: z.string().min(1),
    vmId: z.string().min(1),
    resourceId: z.string().min(1),
    subscriptionId: z.string().optional(),
    resourceGroupName: z.string().optional(),
    vmScaleSetName: z.string().optional(),
    placementGroupId: z.string().optional(),
    platformFaultDomain: z.string().optional(),
    platformUpdateDomain: z.string().optional(),
    zone: z.string().optional(),
    location: z.string().optional(),
    osType: z.string().optional(),
  }),
});
export type InstanceMetadata = z.infer<typeof InstanceMetadata>;

const name = z.string().min(1).max(256);
const optionalText = z.string().max(512).optional();

/**
 * Who the relay is, as it reports itself; taken from instance metadata, never from config.
 * Fields a newer relay adds are ignored (stripped), not refused: see protocol/v1.ts.
 */
export const VmIdentity = z.object({
  name,
  vmId: z.string().min(1).max(64),
  resourceId: z.string().min(1).max(1024),
  subscriptionId: optionalText,
  resourceGroupName: optionalText,
  vmScaleSetName: optionalText,
  placementGroupId: optionalText,
  platformFaultDomain: optionalText,
  platformUpdateDomain: optionalText,
  zone: optionalText,
});
export type VmIdentity = z.infer<typeof VmIdentity>;

const blankToUndefined = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);

export function vmIdentityFromInstanceMetadata(md: InstanceMetadata): VmIdentity {
  const c = md.compute;
  return VmIdentity.parse({
    name: c.name,
    vmId: c.vmId,
    resourceId: c.resourceId,
    subscriptionId: blankToUndefined(c.subscriptionId),
    resourceGroupName: blankToUndefined(c.resourceGroupName),
    vmScaleSetName: blankToUndefined(c.vmScaleSetName),
    placementGroupId: blankToUndefined(c.placementGroupId),
    platformFaultDomain: blankToUndefined(c.platformFaultDomain),
    platformUpdateDomain: blankToUndefined(c.platformUpdateDomain),
    zone: blankToUndefined(c.zone),
  });
}
