import { expect } from 'chai';
import { withoutRejectedFromBundle } from '../src/answer-bundle.js';

const answer = (videoPort: number) =>
  [
    'v=0',
    'o=- 1 0 IN IP4 0.0.0.0',
    's=-',
    't=0 0',
    'a=group:BUNDLE 0 1 2',
    'a=ice-lite',
    'm=audio 9 UDP/TLS/RTP/SAVPF 111',
    'a=mid:0',
    'a=sendrecv',
    `m=video ${videoPort} UDP/TLS/RTP/SAVPF 102`,
    'a=mid:1',
    videoPort === 0 ? 'a=inactive' : 'a=sendonly',
    'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
    'a=mid:2',
    '',
  ].join('\r\n');

describe('withoutRejectedFromBundle: a refused m-line leaves the answer BUNDLE group', () => {
  it('drops the mid of a port-0 m-line from the group and leaves the rest of the answer as it was', () => {
    const out = withoutRejectedFromBundle(answer(0));
    expect(out).to.contain('\r\na=group:BUNDLE 0 2\r\n');
    expect(out.replace('a=group:BUNDLE 0 2', 'a=group:BUNDLE 0 1 2')).to.equal(answer(0));
  });

  it('changes nothing when every m-line is accepted', () => {
    expect(withoutRejectedFromBundle(answer(9))).to.equal(answer(9));
  });
});
