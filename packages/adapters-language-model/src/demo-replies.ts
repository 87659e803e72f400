import type { ChatMessage, LanguageModelTool } from '@svc/core';

/** What the embedded demo model decided to do for one request. */
export type DemoDecision = { kind: 'text'; text: string } | { kind: 'tool'; tool: LanguageModelTool };

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export const DEMO_INTRODUCTION =
  'I am the embedded demo model of this service: a small offline responder, not a real language model. ' +
  'I can tell you the time and the date, repeat what you say, and call the tools of your session when you name them.';

/**
 * The demo model's whole "intelligence": a few fixed intents and an echo. Deterministic for a
 * given conversation and clock, so tests and benchmarks can rely on it.
 */
export function decideReply(
  messages: readonly ChatMessage[],
  tools: readonly LanguageModelTool[],
  toolChoice: 'auto' | 'none' | 'required' | { type: 'function'; name: string },
  now: Date,
): DemoDecision {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n');
  const sayExactly = /say exactly:?\s*["“]([^"”]+)["”]/i.exec(system);
  if (sayExactly) return { kind: 'text', text: sayExactly[1]! };

  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return { kind: 'text', text: describeToolResult(messages, last) };

  const user = [...messages].reverse().find((m) => m.role === 'user');
  if (!user) return { kind: 'text', text: `Hello! ${DEMO_INTRODUCTION}` };
  const text = user.content.trim();

  if (last?.role === 'user' && toolChoice !== 'none' && tools.length > 0) {
    const tool = pickTool(text, tools, toolChoice);
    if (tool) return { kind: 'tool', tool };
  }
  return { kind: 'text', text: answer(text, now) };
}

function answer(text: string, now: Date): string {
  const lower = text.toLowerCase();
  if (!text || text === '[inaudible audio]') return 'Sorry, I could not make out what you said.';
  if (/\b(what('?s| is)? the time|time is it|current time|tell me the time)\b/.test(lower)) {
    return `It is ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())} UTC.`;
  }
  if (/\b(what('?s| is)? (the|today'?s) date|what day is (it|today)|which day is it|today'?s date)\b/.test(lower)) {
    return `Today is ${WEEKDAYS[now.getUTCDay()]}, ${now.getUTCDate()} ${MONTHS[now.getUTCMonth()]} ${now.getUTCFullYear()} (UTC).`;
  }
  if (/\b(help|what can you do|who are you|what are you)\b/.test(lower)) {
    return `${DEMO_INTRODUCTION} Configure SVC_LLM_BASE_URL to use a real language model.`;
  }
  if (/^(hi|hello|hey|good (morning|afternoon|evening)|greetings)\b/.test(lower)) {
    return 'Hello! How can I help you? Ask me the time or the date, or say anything and I will repeat it.';
  }
  if (/\b(thanks|thank you)\b/.test(lower)) return "You're welcome!";
  if (/^(bye|goodbye|see you)\b/.test(lower)) return 'Goodbye!';
  return `You said: "${text}".`;
}

function pickTool(
  text: string,
  tools: readonly LanguageModelTool[],
  toolChoice: 'auto' | 'none' | 'required' | { type: 'function'; name: string },
): LanguageModelTool | undefined {
  if (typeof toolChoice === 'object') return tools.find((t) => t.name === toolChoice.name);
  const lower = text.toLowerCase();
  const named = tools.find((t) => {
    const name = t.name.toLowerCase();
    return lower.includes(name) || lower.includes(name.replace(/[_-]+/g, ' '));
  });
  if (named) return named;
  return toolChoice === 'required' ? tools[0] : undefined;
}

function describeToolResult(messages: readonly ChatMessage[], result: Extract<ChatMessage, { role: 'tool' }>): string {
  let name = 'the tool';
  for (const m of messages) {
    if (m.role === 'assistant') {
      const call = m.toolCalls?.find((c) => c.id === result.toolCallId);
      if (call) name = `the ${call.name} tool`;
    }
  }
  const content = result.content.length > 200 ? `${result.content.slice(0, 199)}…` : result.content;
  return `I called ${name}. It returned: ${content}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
