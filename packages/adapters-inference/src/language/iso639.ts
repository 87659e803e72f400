/**
 * franc's ISO 639-3 codes → lower-case ISO 639-1 (or the espeak tag when 639-1 has none), for
 * the languages franc can detect AND espeak-ng can speak. Detection is restricted to these, which
 * also keeps franc from answering with close relatives nobody synthesizes (Scots for English,
 * Galician for Portuguese...). Macro-language codes franc uses are folded into their language
 * (Standard Arabic, Estonian, Latvian, Malay, Persian, Uzbek, Quechua varieties).
 */
export const ISO639_3_TO_1: Readonly<Record<string, string>> = Object.freeze({
  afr: 'af', amh: 'am', arb: 'ar', azj: 'az', bel: 'be', ben: 'bn', bos: 'bs', bul: 'bg',
  cat: 'ca', ces: 'cs', cmn: 'zh', dan: 'da', deu: 'de', ekk: 'et', ell: 'el', eng: 'en',
  epo: 'eo', fin: 'fi', fra: 'fr', guj: 'gu', hat: 'ht', heb: 'he', hin: 'hi', hrv: 'hr',
  hun: 'hu', hye: 'hy', ind: 'id', ita: 'it', jpn: 'ja', kan: 'kn', kat: 'ka', kaz: 'kk',
  kir: 'ky', kor: 'ko', lit: 'lt', lvs: 'lv', mal: 'ml', mar: 'mr', mkd: 'mk', mya: 'my',
  nld: 'nl', nno: 'no', nob: 'nb', npi: 'ne', pan: 'pa', pes: 'fa', pol: 'pl', por: 'pt',
  prs: 'fa', qug: 'qu', quy: 'qu', quz: 'qu', ron: 'ro', rus: 'ru', sin: 'si', slk: 'sk',
  slv: 'sl', spa: 'es', als: 'sq', srp: 'sr', swe: 'sv', swh: 'sw', tam: 'ta', tat: 'tt',
  tel: 'te', tha: 'th', tir: 'ti', tsn: 'tn', tuk: 'tk', tur: 'tr', uig: 'ug', ukr: 'uk',
  urd: 'ur', uzn: 'uz', vie: 'vi', zlm: 'ms',
});
