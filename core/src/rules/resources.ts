import { memberKey, type ResourceDispute } from "../model/state";

/**
 * Who may change an event's `Resources` (invariant 1 against one dishonest or buggy relay).
 *
 * Every relay of the group sees the event and reports its `Resources`; a shrink must never come
 * from a single relay's word about *another* VM, or that relay could get the event approved while
 * the VM it dropped still serves. So:
 * - any relay may **add** a VM (a lie there only blocks approval until `NotBefore`: safe);
 * - a VM **leaves** only when its own relay's document no longer names it (a VM that lies about
 *   itself can only hurt itself: it could as well claim a drain it never ran);
 * - the document's incarnation orders views: a VM's own view older than the newest incarnation
 *   any relay reported cannot remove it (its relay is behind and will report the newer document),
 *   a view older than a VM's own departure cannot bring it back;
 * - two views of one incarnation that disagree about a VM (another relay names it, its own relay
 *   does not) are a **dispute**: the VM stays in `Resources`, and approval waits for it (or for a
 *   newer incarnation) with the dispute shown to operators.
 * Relays of one availability set or placement group read one document, with one incarnation (the
 * docs and the seeds' stream say so; the fabric simulator models it).
 */
export interface ResourceGuard {
  /** Names as first spelled, in the order they came. */
  resources: string[];
  /** The newest DocumentIncarnation any relay reported this event at; null before the first. */
  resourcesIncarnation: number | null;
  /** memberKeys named by some relay at resourcesIncarnation. */
  namedAtIncarnation: string[];
  /** VMs whose own relay reported them no longer named, and at which incarnation. */
  resourcesLeft: { vm: string; incarnation: number }[];
  /** VMs kept in Resources because views of one incarnation disagree about them. */
  resourceDisputes: ResourceDispute[];
}

export interface ResourceChange {
  guard: ResourceGuard;
  changed: boolean;
  /** Plain-words notes for the event's history. */
  notes: string[];
}

/** The guard of a stored event; rows written before the guard existed start from Resources. */
export function guardOf(e: Partial<ResourceGuard> & { resources: string[] }): ResourceGuard {
  return {
    resources: e.resources,
    resourcesIncarnation: e.resourcesIncarnation ?? null,
    namedAtIncarnation: e.namedAtIncarnation ?? [...new Set(e.resources.map(memberKey))],
    resourcesLeft: e.resourcesLeft ?? [],
    resourceDisputes: e.resourceDisputes ?? [],
  };
}

/** Applies one relay's view (`reporter` at `incarnation` names `named`) to the guard. */
export function applyResourceView(
  g: ResourceGuard,
  reporter: string,
  incarnation: number,
  named: readonly string[],
): ResourceChange {
  const notes: string[] = [];
  const self = memberKey(reporter);
  const namedKeys = new Set(named.map(memberKey));
  let resources = g.resources;
  let left = g.resourcesLeft;
  let disputes = g.resourceDisputes;
  let top = g.resourcesIncarnation;
  let namedAtTop = g.namedAtIncarnation;

  if (top === null || incarnation > top) {
    top = incarnation;
    namedAtTop = [...namedKeys];
  } else if (incarnation === top) {
    const union = new Set([...namedAtTop, ...namedKeys]);
    if (union.size !== namedAtTop.length) namedAtTop = [...union];
  }

  const inResources = (k: string) => resources.some((n) => memberKey(n) === k);
  const dropDispute = (k: string) => {
    if (disputes.some((d) => d.vm === k)) disputes = disputes.filter((d) => d.vm !== k);
  };

  for (const name of named) {
    const k = memberKey(name);
    if (inResources(k)) continue;
    const gone = left.find((l) => l.vm === k);
    if (gone && incarnation < gone.incarnation) continue; // a view older than its own departure
    if (gone && incarnation === gone.incarnation && k !== self) {
      disputes = [...disputes.filter((d) => d.vm !== k), { vm: k, namedBy: reporter, incarnation }];
      notes.push(
        `${name} kept in Resources: ${reporter}'s document of incarnation ${incarnation} names it, its own relay's does not`,
      );
    } else {
      dropDispute(k);
      notes.push(
        `${name} added to Resources by ${reporter}'s document (incarnation ${incarnation})`,
      );
    }
    resources = [...resources, name];
    left = left.filter((l) => l.vm !== k);
  }

  if (!namedKeys.has(self) && inResources(self)) {
    if (incarnation < top) {
      // Behind the group's newest document: its relay reports again when it reads it.
    } else if (namedAtTop.includes(self)) {
      const by = disputes.find((d) => d.vm === self);
      if (!by) {
        disputes = [...disputes, { vm: self, namedBy: "another relay", incarnation }];
        notes.push(
          `${reporter} kept in Resources: its own document of incarnation ${incarnation} does not name it, another relay's of the same incarnation does`,
        );
      }
    } else {
      resources = resources.filter((n) => memberKey(n) !== self);
      left = [...left.filter((l) => l.vm !== self), { vm: self, incarnation }];
      dropDispute(self);
      notes.push(
        `${reporter} left Resources: its own document of incarnation ${incarnation} no longer names it`,
      );
    }
  } else if (namedKeys.has(self)) {
    dropDispute(self);
  } else if (!left.some((l) => l.vm === self && l.incarnation >= incarnation)) {
    // Never named, and its own document says so: remember it, so an older view cannot add it.
    left = [...left.filter((l) => l.vm !== self), { vm: self, incarnation }];
  }

  const unchanged =
    resources === g.resources &&
    left === g.resourcesLeft &&
    disputes === g.resourceDisputes &&
    top === g.resourcesIncarnation &&
    namedAtTop === g.namedAtIncarnation;
  if (unchanged) return { guard: g, changed: false, notes };
  return {
    changed: true,
    notes,
    guard: {
      resources,
      resourcesIncarnation: top,
      namedAtIncarnation: namedAtTop,
      resourcesLeft: left,
      resourceDisputes: disputes,
    },
  };
}
