import { expect } from 'chai';
import {
  ExtractiveSummarizer,
  LanguageModelSummarizer,
  planSummarization,
  estimateTokens,
  fitToContextWindow,
  type ConversationItem,
} from '../../src/realtime/index.js';
import { flush, ScriptedLanguageModel } from '../fakes/index.js';
import { startTextSession, userText } from './support/session-harness.js';

const msg = (id: string, text: string, role: 'user' | 'assistant' = 'user'): ConversationItem => ({
  id,
  object: 'realtime.item',
  type: 'message',
  status: 'completed',
  role,
  content: [role === 'user' ? { type: 'input_text', text } : { type: 'output_text', text }],
});

describe('realtime conversation summarization', () => {
  it('estimates about four characters per token plus framing', () => {
    expect(estimateTokens('')).to.equal(0);
    expect(estimateTokens('abcdefgh')).to.equal(2);
    expect(estimateTokens('abcdefghi')).to.equal(3);
  });

  it('plans nothing under the trigger and the oldest items above it, keeping the recent ones', () => {
    const items = Array.from({ length: 6 }, (_, i) => msg(`m${i}`, 'x'.repeat(36)));
    // each item: 9 + 4 = 13 tokens; 6 items = 78 tokens
    expect(planSummarization(items, 0, 200)).to.deep.equal([]);
    const plan = planSummarization(items, 0, 100);
    expect(plan.map((i) => i.id)).to.deep.equal(['m0', 'm1', 'm2']);
    expect(planSummarization(items.slice(0, 2), 0, 10)).to.deep.equal([]);
  });

  it('fits a request to the window by dropping the oldest items', () => {
    const items = Array.from({ length: 4 }, (_, i) => msg(`m${i}`, 'x'.repeat(36)));
    expect(fitToContextWindow(items, 0, 40, 10).map((i) => i.id)).to.deep.equal(['m2', 'm3']);
    expect(fitToContextWindow(items, 0, 1000, 10)).to.have.length(4);
    expect(fitToContextWindow(items, 0, 1, 10).map((i) => i.id)).to.deep.equal(['m3']);
  });

  it('the extractive summarizer keeps the first sentence of each turn, labelled', async () => {
    const text = await new ExtractiveSummarizer().summarize([
      msg('a', 'I need a taxi. To the airport.'),
      msg('b', 'Sure, when?', 'assistant'),
    ]);
    expect(text).to.equal('Summary of the earlier conversation: User: "I need a taxi." Assistant: "Sure, when?"');
  });

  it('with truncation auto, condenses old items into a summary item in the background; originals stay retrievable', async () => {
    const lm = new ScriptedLanguageModel(undefined, 400);
    const h = await startTextSession({ lm });
    const text = (i: number) => `Message number ${i} is here. ${'filler words '.repeat(13)}`.trim();
    for (let i = 0; i < 6; i++) {
      await h.send({ type: 'conversation.item.create', item: userText(text(i), `u${i}`) });
    }
    await flush();
    // 20 tokens of instructions + 54 per message pass 75 % of 400 at the sixth message; the
    // oldest four are condensed to get under 40 %.
    const summarized = h.out.all('conversation.context.summarized');
    expect(summarized).to.have.length(1);
    const first = summarized[0]!;
    expect(first.summarized_item_ids).to.deep.equal(['u0', 'u1', 'u2', 'u3']);
    const summaryAdded = h.out.all('conversation.item.added').find((e) => (e.item as any).id === first.summary_item_id)!;
    expect(summaryAdded.previous_item_id).to.equal('u3');
    expect((summaryAdded.item as any).role).to.equal('system');
    const summaryText =
      'Summary of the earlier conversation: User: "Message number 0 is here." User: "Message number 1 is here." User: "Message number 2 is here." User: "Message number 3 is here."';
    expect((summaryAdded.item as any).content).to.deep.equal([{ type: 'input_text', text: summaryText }]);
    h.out.take();
    await h.send({ type: 'conversation.item.retrieve', item_id: 'u0' });
    expect((h.out.take()[0]!.item as any).content[0].text).to.equal(text(0));
    await h.send({ type: 'response.create' });
    expect(h.lm.requests[0]!.messages).to.deep.equal([
      { role: 'system', content: `You are a helpful voice assistant. Keep your answers short and conversational.\n\n${summaryText}` },
      { role: 'user', content: text(4) },
      { role: 'user', content: text(5) },
    ]);
  });

  it('with truncation disabled, never summarizes', async () => {
    const lm = new ScriptedLanguageModel(undefined, 120);
    const h = await startTextSession({ lm }, { truncation: 'disabled' });
    for (let i = 0; i < 12; i++) {
      await h.send({ type: 'conversation.item.create', item: userText(`Message number ${i} says something fairly long here.`) });
    }
    await h.send({ type: 'response.create' });
    expect(h.out.types()).to.not.include('conversation.context.summarized');
    expect(h.lm.requests[0]!.messages.filter((m) => m.role === 'user')).to.have.length(12);
  });

  it('the language-model summarizer asks the model and falls back to the extractive summary on failure', async () => {
    const lm = new ScriptedLanguageModel([{ type: 'text', delta: 'The user wants a taxi.' }]);
    const items = [msg('a', 'I need a taxi. To the airport.'), msg('b', 'Sure, when?', 'assistant')];
    const signal = new AbortController().signal;
    expect(await new LanguageModelSummarizer(lm).summarize(items, signal)).to.equal(
      'Summary of the earlier conversation: The user wants a taxi.',
    );
    expect(lm.requests[0]!.messages[1]).to.deep.equal({
      role: 'user',
      content: 'user: I need a taxi. To the airport.\nassistant: Sure, when?',
    });
    expect(lm.requests[0]!.toolChoice).to.equal('none');
    lm.failAfter = { count: 0, error: new Error('down') };
    expect(await new LanguageModelSummarizer(lm).summarize(items, signal)).to.equal(
      'Summary of the earlier conversation: User: "I need a taxi." Assistant: "Sure, when?"',
    );
  });
});
