/** G.711 mu-law (`audio/pcmu`, 8 kHz telephony audio), the classic ITU reference algorithm. */
const BIAS = 0x84;
const CLIP = 32635;

const DECODE_TABLE = new Int16Array(256);
for (let i = 0; i < 256; i++) {
  const u = ~i & 0xff;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  DECODE_TABLE[i] = u & 0x80 ? -magnitude : magnitude;
}

export function muLawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = DECODE_TABLE[bytes[i]!]!;
  return out;
}

export function muLawEncodeSample(sample: number): number {
  let s = sample;
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

export function muLawEncode(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = muLawEncodeSample(samples[i]!);
  return out;
}

/** G.711 A-law (`PCMA`, 8 kHz telephony audio outside North America and Japan), the ITU reference algorithm. */
const A_LAW_DECODE_TABLE = new Int16Array(256);
for (let i = 0; i < 256; i++) {
  const a = i ^ 0x55;
  const exponent = (a >> 4) & 0x07;
  const mantissa = a & 0x0f;
  let magnitude = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  if (!(a & 0x80)) magnitude = -magnitude;
  A_LAW_DECODE_TABLE[i] = magnitude;
}

export function aLawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = A_LAW_DECODE_TABLE[bytes[i]!]!;
  return out;
}

export function aLawEncodeSample(sample: number): number {
  let s = sample >> 3;
  const sign = s >= 0 ? 0x80 : 0;
  if (!sign) s = -s - 1;
  if (s > 0xfff) s = 0xfff;
  let exponent = 0;
  for (let v = s >> 5; v > 0 && exponent < 7; v >>= 1) exponent++;
  const mantissa = exponent === 0 ? (s >> 1) & 0x0f : (s >> exponent) & 0x0f;
  return (sign | (exponent << 4) | mantissa) ^ 0x55;
}

export function aLawEncode(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = aLawEncodeSample(samples[i]!);
  return out;
}
