import { expect } from 'chai';
import { EmbeddedDemoLanguageModel, OpenAiCompatibleLanguageModel } from '@svc/adapters-language-model';
import { loadConfig } from '../../src/config.js';
import { createLanguageModel } from '../../src/composition/realtime.js';

const settings = (env: Record<string, string>) => loadConfig(env).settings;

describe('realtime settings (SVC_REALTIME_*, SVC_LLM_*)', () => {
  it('defaults: embedded demo model, 100 sessions, 10 per key, 30 minute cap, unlimited quota', () => {
    const s = settings({});
    expect(s).to.deep.include({
      SVC_REALTIME_MAX_SESSIONS: 100,
      SVC_REALTIME_MAX_SESSIONS_PER_KEY: 10,
      SVC_REALTIME_MAX_DURATION_SEC: 1800,
      SVC_REALTIME_MAX_FRAME_BYTES: 2 * 1024 * 1024,
      SVC_REALTIME_MAX_BUFFERED_BYTES: 8 * 1024 * 1024,
      SVC_LLM_BASE_URL: '',
    });
    expect(s.SVC_REALTIME_QUOTA).to.deep.equal({ perKey: new Map(), defaultBudget: null });
    const model = createLanguageModel(s);
    expect(model).to.be.instanceOf(EmbeddedDemoLanguageModel);
    expect(model.contextWindowTokens).to.equal(4096);
  });

  it('an OpenAI-compatible model when SVC_LLM_BASE_URL is set', () => {
    const model = createLanguageModel(
      settings({
        SVC_LLM_BASE_URL: 'http://localhost:8080/v1',
        SVC_LLM_MODEL: 'qwen',
        SVC_LLM_API_KEY: 'k',
        SVC_LLM_CONTEXT_WINDOW_TOKENS: '32768',
      }),
    );
    expect(model).to.be.instanceOf(OpenAiCompatibleLanguageModel);
    expect(model.id).to.equal('openai-compatible:qwen');
    expect(model.contextWindowTokens).to.equal(32768);
  });

  it('rejects invalid values', () => {
    expect(() => settings({ SVC_REALTIME_MAX_SESSIONS: '0' })).to.throw(/SVC_REALTIME_MAX_SESSIONS/);
    expect(() => settings({ SVC_REALTIME_MAX_DURATION_SEC: 'soon' })).to.throw(/SVC_REALTIME_MAX_DURATION_SEC/);
    expect(() => settings({ SVC_REALTIME_QUOTA: 'key_a=lots' })).to.throw(/SVC_REALTIME_QUOTA/);
  });
});
