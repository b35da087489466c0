/**
 * Alert processing rules as written (resources/actionRules.ts serves them), by id in any case:
 * Azure's, not the fabric's, so they outlive a reset.
 */
export class ActionRuleStore {
  private readonly rules = new Map<string, Record<string, unknown>>();

  get(id: string): Record<string, unknown> | undefined {
    return this.rules.get(id.toLowerCase());
  }

  put(id: string, rule: Record<string, unknown>): boolean {
    const created = !this.rules.has(id.toLowerCase());
    this.rules.set(id.toLowerCase(), rule);
    return created;
  }
}
