/**
 * Whether OpenAI's model names are accepted (SVC_OPENAI_MODEL_ALIASES, a setting of the
 * compatibility module), for the speech and realtime modules. It takes the configuration as
 * `unknown` on purpose: a module whose type needed the merged settings type (built from every
 * module, itself included) would make that type circular.
 */
export function openAiModelAliases(config: unknown): boolean {
  return (config as { settings: { SVC_OPENAI_MODEL_ALIASES?: boolean } }).settings.SVC_OPENAI_MODEL_ALIASES === true;
}
