import { expect } from 'chai';
import { englishCardinal, englishOrdinal, englishYear } from '../../src/speech/normalization/english-numbers.js';
import { germanCardinal } from '../../src/speech/normalization/numbers-de.js';
import { spanishCardinal } from '../../src/speech/normalization/numbers-es.js';
import { frenchCardinal } from '../../src/speech/normalization/numbers-fr.js';
import { italianCardinal } from '../../src/speech/normalization/numbers-it.js';
import { portugueseCardinal } from '../../src/speech/normalization/numbers-pt.js';

function table(title: string, spell: (n: string) => string, pairs: Array<[number | string, string]>): void {
  describe(title, () => {
    for (const [n, words] of pairs) {
      it(`${n} -> ${words}`, () => expect(spell(String(n))).to.equal(words));
    }
  });
}

describe('number spellers', () => {
  table('English cardinal', englishCardinal, [
    [0, 'zero'],
    [15, 'fifteen'],
    [21, 'twenty-one'],
    [90, 'ninety'],
    [110, 'one hundred ten'],
    [1001, 'one thousand one'],
    [1_000_000, 'one million'],
    [2_000_000_000_000, 'two trillion'],
    ['0042', 'forty-two'],
  ]);
  table('English ordinal', englishOrdinal, [
    [1, 'first'],
    [2, 'second'],
    [3, 'third'],
    [5, 'fifth'],
    [8, 'eighth'],
    [9, 'ninth'],
    [11, 'eleventh'],
    [12, 'twelfth'],
    [21, 'twenty-first'],
    [30, 'thirtieth'],
    [100, 'one hundredth'],
    [1_000_000, 'one millionth'],
  ]);
  table('English year', (n) => englishYear(Number(n)), [
    [1066, 'ten sixty-six'],
    [1776, 'seventeen seventy-six'],
    [1900, 'nineteen hundred'],
    [1905, 'nineteen oh five'],
    [1999, 'nineteen ninety-nine'],
    [2000, 'two thousand'],
    [2005, 'two thousand five'],
    [2010, 'twenty ten'],
    [2024, 'twenty twenty-four'],
    [2100, 'twenty-one hundred'],
  ]);

  table('French', frenchCardinal, [
    [0, 'zéro'],
    [1, 'un'],
    [16, 'seize'],
    [17, 'dix-sept'],
    [21, 'vingt et un'],
    [22, 'vingt-deux'],
    [31, 'trente et un'],
    [61, 'soixante et un'],
    [70, 'soixante-dix'],
    [71, 'soixante et onze'],
    [72, 'soixante-douze'],
    [80, 'quatre-vingts'],
    [81, 'quatre-vingt-un'],
    [90, 'quatre-vingt-dix'],
    [91, 'quatre-vingt-onze'],
    [99, 'quatre-vingt-dix-neuf'],
    [100, 'cent'],
    [101, 'cent un'],
    [200, 'deux cents'],
    [201, 'deux cent un'],
    [1000, 'mille'],
    [1001, 'mille un'],
    [2000, 'deux mille'],
    [80_000, 'quatre-vingt mille'],
    [200_000, 'deux cent mille'],
    [21_000, 'vingt et un mille'],
    [1_000_000, 'un million'],
    [2_000_000, 'deux millions'],
    [200_000_000, 'deux cents millions'],
    [1_000_000_000, 'un milliard'],
    [1_234_567, 'un million deux cent trente-quatre mille cinq cent soixante-sept'],
  ]);
  table('Spanish', spanishCardinal, [
    [0, 'cero'],
    [1, 'uno'],
    [15, 'quince'],
    [16, 'dieciséis'],
    [21, 'veintiuno'],
    [22, 'veintidós'],
    [31, 'treinta y uno'],
    [100, 'cien'],
    [101, 'ciento uno'],
    [500, 'quinientos'],
    [999, 'novecientos noventa y nueve'],
    [1000, 'mil'],
    [2000, 'dos mil'],
    [21_000, 'veintiún mil'],
    [101_000, 'ciento un mil'],
    [1_000_000, 'un millón'],
    [2_000_000, 'dos millones'],
    [31_000_000, 'treinta y un millones'],
    [1_000_000_000, 'mil millones'],
    [1_000_000_000_000, 'un billón'],
    [1_234_567, 'un millón doscientos treinta y cuatro mil quinientos sesenta y siete'],
  ]);
  table('German', germanCardinal, [
    [0, 'null'],
    [1, 'eins'],
    [11, 'elf'],
    [17, 'siebzehn'],
    [21, 'einundzwanzig'],
    [30, 'dreißig'],
    [99, 'neunundneunzig'],
    [100, 'einhundert'],
    [101, 'einhunderteins'],
    [1000, 'eintausend'],
    [1001, 'eintausendeins'],
    [2024, 'zweitausendvierundzwanzig'],
    [101_000, 'einhunderteintausend'],
    [1_000_000, 'eine Million'],
    [2_000_000, 'zwei Millionen'],
    [1_000_000_000, 'eine Milliarde'],
    [1_234_567, 'eine Million zweihundertvierunddreißigtausendfünfhundertsiebenundsechzig'],
  ]);
  table('Italian', italianCardinal, [
    [0, 'zero'],
    [1, 'uno'],
    [3, 'tre'],
    [17, 'diciassette'],
    [21, 'ventuno'],
    [23, 'ventitré'],
    [28, 'ventotto'],
    [100, 'cento'],
    [103, 'centotré'],
    [108, 'centotto'],
    [180, 'centottanta'],
    [1000, 'mille'],
    [1003, 'milletré'],
    [2000, 'duemila'],
    [21_000, 'ventunmila'],
    [1_000_000, 'un milione'],
    [2_000_000, 'due milioni'],
    [1_234, 'milleduecentotrentaquattro'],
    [1_000_000_000, 'un miliardo'],
  ]);
  table('Portuguese (Brazil)', (n) => portugueseCardinal(n, 'br'), [
    [0, 'zero'],
    [1, 'um'],
    [16, 'dezesseis'],
    [19, 'dezenove'],
    [21, 'vinte e um'],
    [100, 'cem'],
    [101, 'cento e um'],
    [250, 'duzentos e cinquenta'],
    [1000, 'mil'],
    [1100, 'mil e cem'],
    [1234, 'mil duzentos e trinta e quatro'],
    [2030, 'dois mil e trinta'],
    [1_000_000, 'um milhão'],
    [2_000_000, 'dois milhões'],
    [1_000_000_000, 'um bilhão'],
  ]);
  table('Portuguese (Portugal)', (n) => portugueseCardinal(n, 'pt'), [
    [16, 'dezasseis'],
    [17, 'dezassete'],
    [19, 'dezanove'],
    [1_000_000_000, 'mil milhões'],
    [1_000_000_000_000, 'um bilião'],
  ]);

  it('reads numbers beyond the named scales digit by digit in every language', () => {
    const huge = '9'.repeat(60);
    for (const spell of [
      englishCardinal,
      frenchCardinal,
      spanishCardinal,
      germanCardinal,
      italianCardinal,
      (n: string) => portugueseCardinal(n),
    ]) {
      expect(spell(huge).split(' ')).to.have.length(60);
    }
  });
});
