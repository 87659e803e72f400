/**
 * Takes the rejected m-lines (port 0) out of an SDP answer's BUNDLE group. werift lists every mid
 * there, rejected or not; RFC 8843 (section 7.3.3) says an answerer that rejects an m-line must move
 * it out of the bundle, and Chromium holds it to that: a rejected m-line left as the group's first
 * (its tag) fails the whole answer ("The m= section with mid='1' should be rejected"), and one left
 * anywhere in it is bundled transport state for a track that does not exist.
 */
export function withoutRejectedFromBundle(sdp: string): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const sections = sdp.split(/(?=^m=)/m);
  const rejected = new Set<string>();
  for (const section of sections.slice(1)) {
    if (!/^m=\S+ 0 /.test(section)) continue;
    const mid = /^a=mid:(\S+)/m.exec(section)?.[1];
    if (mid !== undefined) rejected.add(mid);
  }
  if (rejected.size === 0) return sdp;
  return sdp
    .split(eol)
    .map((line) => {
      const group = /^a=group:BUNDLE(.*)$/.exec(line);
      if (!group) return line;
      const kept = group[1]!.split(' ').filter((mid) => mid !== '' && !rejected.has(mid));
      return `a=group:BUNDLE${kept.map((mid) => ` ${mid}`).join('')}`;
    })
    .join(eol);
}
