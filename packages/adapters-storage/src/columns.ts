// bigint columns arrive as strings from Postgres and as numbers from SQLite.
export const toMillis = (value: string | number): number => Number(value);
export const toNullableMillis = (value: string | number | null): number | null => (value === null ? null : Number(value));
