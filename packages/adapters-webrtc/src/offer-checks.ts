import { InvalidSdpOfferError } from '@svc/core';

/**
 * Cheap checks of an offer before a peer connection is built for it: SDP text (`v=0` first), an
 * audio m-line for the microphone, and what DTLS-SRTP needs (ICE credentials, a fingerprint).
 * Anything else is left to the peer connection, whose refusal is a 400 too.
 */
export function checkOffer(sdp: string): void {
  const text = sdp.trimStart();
  if (!text.startsWith('v=0')) throw new InvalidSdpOfferError('The body is not an SDP offer (it must start with "v=0").');
  const lines = text.split(/\r?\n/);
  if (!lines.some((l) => l.startsWith('m=audio ')))
    throw new InvalidSdpOfferError('The SDP offer has no audio m-line (the microphone track).');
  if (!lines.some((l) => l.startsWith('a=ice-ufrag:')) || !lines.some((l) => l.startsWith('a=ice-pwd:'))) {
    throw new InvalidSdpOfferError('The SDP offer has no ICE credentials (a=ice-ufrag, a=ice-pwd).');
  }
  if (!lines.some((l) => l.startsWith('a=fingerprint:')))
    throw new InvalidSdpOfferError('The SDP offer has no DTLS fingerprint (a=fingerprint).');
  if (!lines.some((l) => /^a=rtpmap:\d+ opus\/48000/i.test(l)))
    throw new InvalidSdpOfferError('The SDP offer does not offer Opus (a=rtpmap:<pt> opus/48000/2).');
}
