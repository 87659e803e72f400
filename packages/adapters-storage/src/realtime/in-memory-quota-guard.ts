import type { QuotaGuard } from '@svc/core';

/**
 * A per-API-key spending budget kept in memory: each key may consume up to its budget of units
 * (summed over resources) per process lifetime. Keys without a budget, and everything when no
 * budget is configured, are unlimited. Operators with real billing replace it behind QuotaGuard.
 */
export class InMemoryQuotaGuard implements QuotaGuard {
  private readonly used = new Map<string, number>();

  constructor(private readonly budgets: QuotaBudgets = { perKey: new Map(), defaultBudget: null }) {}

  async consume(apiKeyId: string, _resource: string, units: number): Promise<{ allowed: boolean; message?: string }> {
    const budget = this.budgets.perKey.get(apiKeyId) ?? this.budgets.defaultBudget;
    if (budget === null) return { allowed: true };
    const next = (this.used.get(apiKeyId) ?? 0) + units;
    if (next > budget) {
      return { allowed: false, message: `Quota exhausted: this API key's budget of ${budget} units is used up.` };
    }
    this.used.set(apiKeyId, next);
    return { allowed: true };
  }

  /** Units consumed so far by a key. */
  usage(apiKeyId: string): number {
    return this.used.get(apiKeyId) ?? 0;
  }
}

export interface QuotaBudgets {
  perKey: Map<string, number>;
  /** Budget of keys not listed; null = unlimited. */
  defaultBudget: number | null;
}

/**
 * Parses SVC_REALTIME_QUOTA: empty = unlimited; `100` = 100 units for every key;
 * `key_abc=5,key_def=50,*=100` = per-key budgets with `*` for all other keys.
 */
export function parseQuotaBudgets(spec: string | undefined): QuotaBudgets {
  const budgets: QuotaBudgets = { perKey: new Map(), defaultBudget: null };
  const text = (spec ?? '').trim();
  if (!text) return budgets;
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key, value] = part.includes('=') ? part.split('=', 2).map((s) => s.trim()) : ['*', part];
    const n = Number(value);
    if (!key || !Number.isInteger(n) || n < 0) {
      throw new Error(`Invalid SVC_REALTIME_QUOTA entry '${part}': use N or key_id=N (N a non-negative integer).`);
    }
    if (key === '*') budgets.defaultBudget = n;
    else budgets.perKey.set(key, n);
  }
  return budgets;
}
