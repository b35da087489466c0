import { SCHEDULED_EVENTS_API_VERSIONS, type ScheduledEventsApiVersion } from "../model/document";

/** The `/metadata/instance` api-versions IMDS accepts (the relay pins 2021-02-01). */
export const INSTANCE_API_VERSIONS: readonly string[] = [
  "2017-03-01",
  "2017-04-02",
  "2017-08-01",
  "2017-10-01",
  "2017-12-01",
  "2018-02-01",
  "2018-04-02",
  "2018-10-01",
  "2019-02-01",
  "2019-03-11",
  "2019-04-30",
  "2019-06-01",
  "2019-06-04",
  "2019-08-01",
  "2019-08-15",
  "2019-11-01",
  "2020-06-01",
  "2020-07-15",
  "2020-09-01",
  "2020-10-01",
  "2020-12-01",
  "2021-01-01",
  "2021-02-01",
  "2021-03-01",
  "2021-05-01",
  "2021-08-01",
  "2021-10-01",
  "2021-11-01",
  "2021-11-15",
  "2021-12-13",
  "2022-02-01",
  "2022-03-01",
  "2022-07-01",
  "2022-08-01",
  "2022-09-01",
  "2023-07-01",
];

export function scheduledEventsApiVersion(v: string | null): ScheduledEventsApiVersion | undefined {
  return (SCHEDULED_EVENTS_API_VERSIONS as readonly string[]).includes(v ?? "")
    ? (v as ScheduledEventsApiVersion)
    : undefined;
}

export function newestVersions(all: readonly string[]): string[] {
  return [...all].reverse().slice(0, 3);
}

/** `/metadata/attested/document`: the attested category appeared in 2018-10-01 (IMDS docs). */
export const ATTESTED_API_VERSIONS: readonly string[] = INSTANCE_API_VERSIONS.filter(
  (v) => v >= "2018-10-01",
);
