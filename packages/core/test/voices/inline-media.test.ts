import { expect } from 'chai';
import { InvalidMediaUrlError } from '../../src/shared/errors.js';
import { InvalidInlineMediaError, MediaTooLargeError } from '../../src/media/errors.js';
import { decodeInlineMedia, parseMediaReference } from '../../src/media/inline-media.js';

describe('inline media references', () => {
  it('tells URLs, data URIs and base64 apart by syntax', () => {
    expect(parseMediaReference('https://example.com/a.wav', 'ref_audio')).to.deep.equal({ kind: 'url', url: 'https://example.com/a.wav' });
    expect(parseMediaReference('HTTP://example.com/a.wav', 'ref_audio').kind).to.equal('url');
    expect(parseMediaReference('data:audio/wav;base64,AAEC', 'ref_audio')).to.deep.equal({
      kind: 'inline',
      base64: 'AAEC',
      mediaType: 'audio/wav',
    });
    expect(parseMediaReference('  UklGRg==  ', 'ref_audio')).to.deep.equal({ kind: 'inline', base64: 'UklGRg==', mediaType: null });
  });

  it('refuses other schemes and non-base64 data URIs', () => {
    for (const bad of ['file:///etc/passwd', 'ftp://example.com/a.wav', 'gopher://x', 'javascript:alert(1)']) {
      expect(() => parseMediaReference(bad, 'ref_audio')).to.throw(InvalidMediaUrlError);
    }
    expect(() => parseMediaReference('data:audio/wav,rawtext', 'ref_audio')).to.throw(InvalidInlineMediaError);
    expect(() => parseMediaReference('data:audio/wav;base64', 'ref_audio')).to.throw(InvalidInlineMediaError);
  });

  it('decodes standard, URL-safe, unpadded and line-wrapped base64 exactly', () => {
    const bytes = new Uint8Array(1000).map((_, i) => (i * 37 + 11) & 255);
    const std = Buffer.from(bytes).toString('base64');
    for (const variant of [std, std.replace(/=+$/, ''), Buffer.from(bytes).toString('base64url'), std.replace(/(.{76})/g, '$1\n')]) {
      expect(Buffer.from(decodeInlineMedia(variant, 'ref_audio', 1e6)).equals(Buffer.from(bytes))).to.equal(true);
    }
    for (let n = 0; n < 6; n++) {
      const small = bytes.subarray(0, n);
      expect(Array.from(decodeInlineMedia(Buffer.from(small).toString('base64'), 'p', 100))).to.deep.equal(Array.from(small));
    }
  });

  it('refuses invalid base64', () => {
    for (const bad of ['abc$', 'a', 'ab=c', '@@@@'])
      expect(() => decodeInlineMedia(bad, 'ref_audio', 100)).to.throw(InvalidInlineMediaError);
  });

  it('checks the size before decoding (413 media_too_large)', () => {
    const err = (() => {
      try {
        decodeInlineMedia('A'.repeat(101), 'ref_audio', 100);
      } catch (e) {
        return e as MediaTooLargeError;
      }
      return null;
    })();
    expect(err).to.be.instanceOf(MediaTooLargeError);
    expect(err!.serverFault).to.equal(false);
    expect(err!.identifier).to.equal('media_too_large');
    expect(err!.param).to.equal('ref_audio');
  });

  it('the size error names the kind of media, the decoded size, and multipart only where it exists', () => {
    const message = (maxChars: number, advice: Parameters<typeof decodeInlineMedia>[3]) => {
      try {
        decodeInlineMedia('A'.repeat(maxChars + 4), 'p', maxChars, advice);
      } catch (e) {
        return (e as MediaTooLargeError).message;
      }
      throw new Error('expected a refusal');
    };
    const tenMb = 10 * 1024 * 1024;
    expect(message(tenMb, { kind: 'image' })).to.equal(
      "'p': the inline (base64 or data URI) text exceeds the limit of 10 MB (about 7.5 MB of image once decoded; send larger images by URL).",
    );
    expect(message(tenMb, { kind: 'audio', uploadable: true })).to.contain(
      'about 7.5 MB of audio once decoded; send larger audio files as multipart or by URL',
    );
    expect(message(tenMb, { kind: 'image', uploadable: true })).to.contain('send larger images as multipart or by URL');
    expect(message(tenMb, undefined)).to.contain('about 7.5 MB of media once decoded; send larger files by URL');
    expect(message(1000, { kind: 'audio' })).to.contain('about 750 bytes of audio');
  });
});
