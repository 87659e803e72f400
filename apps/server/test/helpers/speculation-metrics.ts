/** Replies begun at a pause (speculation) by what became of them, from a server's /metrics. */
export async function speculationCounts(baseUrl: string, apiKey: string): Promise<{ used: number; discarded: number }> {
  const text = await (await fetch(`${baseUrl}/metrics`, { headers: { Authorization: `Bearer ${apiKey}` } })).text();
  const count = (outcome: string) =>
    Number(new RegExp(`svc_realtime_speculations_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { used: count('used'), discarded: count('discarded') };
}
