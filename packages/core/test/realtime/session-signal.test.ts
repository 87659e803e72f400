import { expect } from 'chai';
import { IDLE_TIMEOUT_MS, type ConversationItem, type ConversationSummarizer, type SpeechRecognizer } from '../../src/realtime/index.js';
import { flush, pcmBase64, ScriptedLanguageModel } from '../fakes/index.js';
import { startTextSession, userText, type Harness } from './support/session-harness.js';

/** Resolves only when its signal aborts; keeps the signal it was given. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) =>
    signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true }),
  );
}

class HangingRecognizer implements SpeechRecognizer {
  signals: AbortSignal[] = [];
  transcribe(_audio: unknown, _options: unknown, signal?: AbortSignal): Promise<{ text: string }> {
    this.signals.push(signal!);
    return untilAborted(signal!);
  }
}

class HangingSummarizer implements ConversationSummarizer {
  signals: AbortSignal[] = [];
  summarize(_items: readonly ConversationItem[], signal: AbortSignal): Promise<string> {
    this.signals.push(signal);
    return untilAborted(signal);
  }
}

/** The two ways a session ends: the transport goes away, or the server ends it (here: five minutes without speech). */
const endings: Array<[string, (h: Harness) => void]> = [
  ['the transport closes', (h) => h.engine.transportClosed()],
  ['the server ends the session (idle timeout)', (h) => h.clock.advance(IDLE_TIMEOUT_MS)],
];

describe("the session's signal is the parent of every turn, response and summary", () => {
  for (const [how, end] of endings) {
    describe(`when ${how}`, () => {
      it('aborts a committed turn still being transcribed', async () => {
        const recognizer = new HangingRecognizer();
        const h = await startTextSession({ audio: { speechRecognizer: recognizer } });
        await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 5000) });
        await h.send({ type: 'input_audio_buffer.commit' });
        expect(recognizer.signals).to.have.length(1);
        expect(recognizer.signals[0]!.aborted).to.equal(false);
        end(h);
        expect(recognizer.signals[0]!.aborted).to.equal(true);
      });

      it('aborts a response whose model is still streaming', async () => {
        const lm = new ScriptedLanguageModel();
        lm.holdAfter = 1;
        const h = await startTextSession({ lm });
        await h.send({ type: 'conversation.item.create', item: userText('hello') });
        await h.send({ type: 'response.create' });
        expect(h.out.types()).to.include('response.output_text.delta');
        expect(lm.requests[0]!.signal.aborted).to.equal(false);
        end(h);
        expect(lm.requests[0]!.signal.aborted).to.equal(true);
        await flush();
        // Nothing is sent once the session is closed, not even the cancelled response.done.
        expect(h.out.types()).to.not.include('response.done');
      });

      it('aborts a summary being written in the background', async () => {
        const summarizer = new HangingSummarizer();
        const h = await startTextSession({ lm: new ScriptedLanguageModel(undefined, 400), deps: { summarizer } });
        for (let i = 0; i < 6; i++) {
          await h.send({
            type: 'conversation.item.create',
            item: userText(`Message number ${i} is here. ${'filler words '.repeat(13)}`.trim()),
          });
        }
        expect(summarizer.signals).to.have.length(1);
        expect(summarizer.signals[0]!.aborted).to.equal(false);
        end(h);
        expect(summarizer.signals[0]!.aborted).to.equal(true);
      });
    });
  }

  it("a response cancelled by the client aborts only that response, not the session's other work", async () => {
    const recognizer = new HangingRecognizer();
    const lm = new ScriptedLanguageModel();
    lm.holdAfter = 1;
    const h = await startTextSession({ lm, audio: { speechRecognizer: recognizer } });
    await h.send({ type: 'conversation.item.create', item: userText('hello') });
    await h.send({ type: 'response.create' });
    await h.send({ type: 'response.cancel' });
    expect(lm.requests[0]!.signal.aborted).to.equal(true);
    expect(h.out.last('response.done').response).to.deep.include({ status: 'cancelled' });
    await h.send({ type: 'input_audio_buffer.append', audio: pcmBase64(300, 24000, 5000) });
    await h.send({ type: 'input_audio_buffer.commit' });
    expect(recognizer.signals[0]!.aborted).to.equal(false);
    expect(h.out.closed).to.equal(null);
  });
});
