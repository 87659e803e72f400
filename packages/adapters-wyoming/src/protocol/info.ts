import type { PresetVoice, RecognizerDescription, VoiceAlias } from '@svc/core';
import type { RegisteredVoiceEntry } from '../ports.js';

interface Attribution {
  name: string;
  url: string;
}

/** Who made each engine, as an `info` artifact's required `attribution` says it. */
const ATTRIBUTIONS: Record<string, Attribution> = {
  flite: { name: 'CMU Flite', url: 'http://www.festvox.org/flite/' },
  espeak: { name: 'eSpeak NG', url: 'https://github.com/espeak-ng/espeak-ng' },
  piper: { name: 'Piper', url: 'https://github.com/rhasspy/piper' },
  kokoro: { name: 'Kokoro', url: 'https://huggingface.co/hexgrad/Kokoro-82M' },
  pocketsphinx: { name: 'CMU PocketSphinx', url: 'https://github.com/cmusphinx/pocketsphinx' },
  whisper: { name: 'OpenAI Whisper', url: 'https://github.com/openai/whisper' },
  moonshine: { name: 'Moonshine', url: 'https://github.com/usefulsensors/moonshine' },
};
const attribution = (engine: string): Attribution => ATTRIBUTIONS[engine] ?? { name: engine, url: '' };

/** `en-us` -> `en-US`, `zh-hans-cn` -> `zh-Hans-CN`: the case language tags are usually written in. */
export function displayLanguage(tag: string): string {
  return tag
    .split('-')
    .map((part, i) =>
      i === 0
        ? part.toLowerCase()
        : part.length === 2
          ? part.toUpperCase()
          : part.length === 4
            ? part[0]!.toUpperCase() + part.slice(1).toLowerCase()
            : part,
    )
    .join('-');
}

export interface InfoSource {
  program: { name: string; version: string };
  presets: readonly PresetVoice[];
  /** OpenAI's voice names the catalog maps to installed voices (`alloy`, `nova`, ...). */
  aliases: readonly VoiceAlias[];
  registered: readonly RegisteredVoiceEntry[];
  recognizer: RecognizerDescription | null;
  /** Languages a registered voice is offered under when its own is unknown. */
  fallbackLanguages: readonly string[];
}

/**
 * The `info` event's data in the protocol's shape: one TTS program whose voices are the presets
 * (the core's voice catalog: embedded and neural voices, and OpenAI's names for them) and the port key's
 * registered voices, streaming synthesis supported; one ASR program with the server's recognizer
 * as its model (none without a recognizer), transcript streaming where the recognizer has partial
 * results. Every artifact is `installed`: clients (Home Assistant) skip the others.
 */
export function infoData(source: InfoSource): Record<string, unknown> {
  const { program } = source;
  const own: Attribution = { name: program.name, url: '' };
  const voices = [
    ...source.presets.map((v) => ({
      name: v.name,
      attribution: attribution(v.engine),
      installed: true,
      description: v.description || v.name,
      version: null,
      languages: [displayLanguage(v.language)],
      speakers: null,
    })),
    ...source.aliases.map((a) => ({
      name: a.name,
      attribution: attribution(a.target.engine),
      installed: true,
      description: `${a.description} (alias of ${a.target.name})`,
      version: null,
      languages: [displayLanguage(a.target.language)],
      speakers: null,
    })),
    ...source.registered.map((v) => ({
      name: v.id,
      attribution: own,
      installed: true,
      description: v.description ? `${v.description} (registered voice)` : `Registered voice ${v.id}`,
      version: null,
      languages: (v.language ? [v.language] : source.fallbackLanguages).map(displayLanguage),
      speakers: null,
    })),
  ];
  const recognizer = source.recognizer;
  return {
    asr: recognizer
      ? [
          {
            name: program.name,
            attribution: own,
            installed: true,
            description: `${program.name} speech recognition (${recognizer.name})`,
            version: program.version,
            models: [
              {
                name: recognizer.name,
                attribution: attribution(recognizer.name.split(':')[0]!),
                installed: true,
                description: recognizer.name,
                version: null,
                languages: [...recognizer.languages],
              },
            ],
            supports_transcript_streaming: recognizer.partialResults,
          },
        ]
      : [],
    tts: [
      {
        name: program.name,
        attribution: own,
        installed: true,
        description: `${program.name} speech: presets, neural and registered voices, inline tags`,
        version: program.version,
        voices,
        supports_synthesize_streaming: true,
      },
    ],
    handle: [],
    intent: [],
    wake: [],
    mic: [],
    snd: [],
  };
}
