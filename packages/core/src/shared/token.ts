declare const boundType: unique symbol;

/**
 * An injection token that carries the type of what is bound under it, so the composition root's
 * `provide(token, make)` checks `make`'s result and `get(token)` returns that type without a cast.
 * At run time it is the plain `Symbol.for(name)` (the core stays free of any container library); the
 * type exists only for the compiler (`boundType` is never set).
 */
export type Token<T> = symbol & { readonly [boundType]?: T };

/** The type bound under a token, e.g. `BoundBy<typeof SHARED_TOKENS.Clock>` is `Clock`. */
export type BoundBy<K> = K extends Token<infer T> ? T : never;

/** Declares a token: `Clock: token<Clock>('svc.Clock')`. */
export function token<T>(name: string): Token<T> {
  return Symbol.for(name) as Token<T>;
}
