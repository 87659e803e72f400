export { OpenAiCompatibleLanguageModel, type OpenAiCompatibleLanguageModelOptions } from './openai-compatible-language-model.js';
export { EmbeddedDemoLanguageModel, type EmbeddedDemoLanguageModelOptions } from './embedded-demo-language-model.js';
export { DEMO_INTRODUCTION } from './demo-replies.js';
export { demoToolArguments } from './demo-tool-arguments.js';
export { ToolCallAssembler, type ToolCallDelta } from './tool-call-assembler.js';
export { readServerSentEvents } from './server-sent-events.js';
export { chatCompletionsBody } from './chat-completions-request.js';
