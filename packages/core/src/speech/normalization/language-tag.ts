/** Reduces a BCP-47 tag ("en-US", "pt_BR") to its lower-case primary language ("en", "pt"). */
export function primaryLanguage(tag: string): string {
  return tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

/** The lower-case region of a BCP-47 tag ("pt-PT" -> "pt"), or null when there is none. */
export function languageRegion(tag: string): string | null {
  const parts = tag.trim().toLowerCase().split(/[-_]/);
  const region = parts.slice(1).find((p) => /^[a-z]{2}$|^\d{3}$/.test(p));
  return region ?? null;
}
