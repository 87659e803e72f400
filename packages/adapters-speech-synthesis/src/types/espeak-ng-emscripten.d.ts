// Local declarations for the untyped Emscripten build of eSpeak-NG (only what the adapter uses).
declare module '@echogarden/espeak-ng-emscripten' {
  export interface EspeakEvent {
    type: 'list_terminated' | 'word' | 'sentence' | 'mark' | 'play' | 'end' | 'msg_terminated' | 'phoneme' | 'samplerate';
    /** 1-based code-point position in the (SSML) input text. */
    text_position: number;
    word_length: number;
    /** Milliseconds from the start of the synthesized audio. */
    audio_position: number;
    id?: number | string;
  }

  export interface EspeakVoiceInfo {
    name: string;
    identifier: string;
    /** Lower `priority` = better match for that language. */
    languages: { priority: number; name: string }[];
  }

  export interface ESpeakNGWorker {
    list_voices(): EspeakVoiceInfo[];
    /** Returns 0 on success. */
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): void;
    set_pitch(pitch: number): void;
    set_range(range: number): void;
    set_volume(volume: number): void;
    get_samplerate(): number;
    /** The callback returns truthy to stop synthesis early. */
    synthesize(text: string, callback: (samples: Int16Array, events: EspeakEvent[]) => boolean | number): void;
  }

  export interface EspeakModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
  }

  export default function Init(moduleArg?: object): Promise<EspeakModule>;
}
