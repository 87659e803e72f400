import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '@svc/core';
import { TokenDecoder } from '../../src/asr/seq2seq/token-decoder.js';
import { readTransformersAsrModel } from '../../src/asr/seq2seq/transformers-model-folder.js';
import { TransformersSpeechRecognizer } from '../../src/asr/seq2seq/transformers-speech-recognizer.js';
import { WhisperFamily } from '../../src/asr/whisper/whisper-family.js';
import { TEST_WHISPER_START_OF_PREV, TEST_WHISPER_TOKENS as W, writeTestAsrFolder } from '@svc/adapters-testing';

const principal = { keyId: 'k', tenantId: 't' } as unknown as Principal;

/** A small GPT-2-style tokenizer.json: single byte characters, a few merges whose order matters. */
function smallByteLevelTokenizer(): object {
  const pieces = [
    'Ġ',
    'l',
    'o',
    'w',
    'e',
    'r',
    'i',
    't',
    "'",
    's',
    ',',
    'Ã',
    '©',
    'c',
    'a',
    'f',
    'er',
    'lo',
    'low',
    'Ġlower',
    'Ġlow',
    'it',
    "'s",
    'Ġc',
    'Ġca',
    'Ġcaf',
    'Ã©',
  ];
  return {
    model: {
      type: 'BPE',
      vocab: Object.fromEntries(pieces.map((p, i) => [p, i])),
      // "e r" ranks first, so " lower" becomes Ġ|lo|w|er -> Ġ|low|er, never "Ġl...". Array pairs (newer files) mixed with strings.
      merges: ['e r', 'l o', ['lo', 'w'], 'Ġ low', 'Ġlow er', 'i t', "' s", 'Ġ c', 'Ġc a', 'Ġca f', 'Ã ©'],
    },
    added_tokens: [{ id: 100, content: '<|endoftext|>', special: true }],
    pre_tokenizer: { type: 'ByteLevel' },
    decoder: { type: 'ByteLevel' },
  };
}

describe('Whisper prompt: byte-level BPE encoding and <|startofprev|> context', function () {
  this.timeout(60000);
  let root: string;
  before(async () => (root = await mkdtemp(join(tmpdir(), 'svc-asr-prompt-'))));
  after(async () => rm(root, { recursive: true, force: true }));

  it('encodes with tokenizer.json merges by rank, GPT-2 pre-tokenization and the byte table, and decodes back', () => {
    const t = new TokenDecoder(smallByteLevelTokenizer(), 'tokenizer.json');
    const v = (p: string) => Object.keys((smallByteLevelTokenizer() as { model: { vocab: object } }).model.vocab).indexOf(p);
    expect(t.encode(' lower')).to.deep.equal([v('Ġlower')]);
    expect(t.encode('lower')).to.deep.equal([v('low'), v('er')]);
    // "it's" splits into "it" + "'s" (contraction), " café" into bytes Ġ c a f 0xC3 0xA9.
    expect(t.encode("it's café")).to.deep.equal([v('it'), v("'s"), v('Ġcaf'), v('Ã©')]);
    for (const text of [' lower', "it's café", 'slow, lit']) expect(t.decode(t.encode(text))).to.equal(text);
    expect(() => t.encode('xyz')).to.throw("tokenizer.json: the vocabulary has no piece 'x'");
    expect(() => new TokenDecoder({ model: { vocab: { a: 0 } } }, 'sp.json').encode('a')).to.throw('only byte-level BPE tokenizers');
  });

  async function promptFolder(): Promise<string> {
    const dir = join(root, 'whisper-prompt');
    await writeTestAsrFolder(dir, { family: 'whisper' });
    return dir;
  }

  it('the prompt goes before <|startoftranscript|> as <|startofprev|> + " " + its tokens', async () => {
    const model = await readTransformersAsrModel(await promptFolder());
    const family = new WhisperFamily(model);
    const forced = [W.sot, W.en, W.transcribe, W.noTimestamps];
    const plan = async (prompt?: string) => (await family.plan(null as never, null as never, 'en', 1, prompt)).plan.prompt;
    expect(await plan('  hello world ')).to.deep.equal([TEST_WHISPER_START_OF_PREV, 2, 3, ...forced]);
    expect(await plan('')).to.deep.equal(forced);
    expect(await plan()).to.deep.equal(forced);
  });

  it('the prompt tokens reach the decoder: the test model answers by sequence position, so the context shifts what it says', async () => {
    const r = await TransformersSpeechRecognizer.create({ dir: await promptFolder() });
    try {
      const audio = {
        samples: Int16Array.from({ length: 16000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 16000))),
        sampleRate: 16000,
      };
      const text = async (prompt?: string) =>
        (await r.transcribeDetailed(audio, { language: 'en', principal, ...(prompt ? { prompt } : {}) })).text;
      // No prompt: 4 forced tokens, " dear" (preferred at position 6) comes after " caf".
      expect(await text()).to.equal('hello world caf dear');
      // <|startofprev|> " hello": 6 forced tokens, so position 6 is the second generated one.
      expect(await text('hello')).to.equal('hello dear');
      // <|startofprev|> " hello" " world": 7 forced tokens, position 6 is the first one computed.
      expect(await text('hello world')).to.equal('dear');
    } finally {
      await r.close();
    }
  });
});
