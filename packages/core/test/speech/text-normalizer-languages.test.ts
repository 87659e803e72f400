import { expect } from 'chai';
import { normalizeText } from '../../src/speech/text-normalizer.js';

function cases(language: string, pairs: Array<[string, string]>): void {
  describe(language, () => {
    for (const [input, expected] of pairs) {
      it(`${JSON.stringify(input)} -> ${JSON.stringify(expected)}`, () => {
        expect(normalizeText(input, language)).to.equal(expected);
      });
    }
  });
}

describe('normalizeText (other languages)', () => {
  cases('fr', [
    ["J'ai 21 ans.", "J'ai vingt et un ans."],
    ['1 234 567', 'un million deux cent trente-quatre mille cinq cent soixante-sept'],
    ['1.500', 'mille cinq cents'],
    ['3,14', 'trois virgule quatorze'],
    ['3,05', 'trois virgule zéro cinq'],
    ['-4', 'moins quatre'],
    ['10 %', 'dix pour cent'],
    ['5,50 €', 'cinq euros et cinquante centimes'],
    ['1 €', 'un euro'],
    ['€3', 'trois euros'],
    ['1 000 000 €', "un million d'euros"],
    ['£1', 'une livre'],
    ['15:30', 'quinze heures trente'],
    ['1h00', 'une heure'],
    ['Tom & Jerry', 'Tom et Jerry'],
  ]);

  cases('es', [
    ['Tengo 35 años.', 'Tengo treinta y cinco años.'],
    ['1.000.000 €', 'un millón de euros'],
    ['3,14', 'tres coma catorce'],
    ['25 %', 'veinticinco por ciento'],
    ['21 €', 'veintiún euros'],
    ['1 €', 'un euro'],
    ['2,50 €', 'dos euros con cincuenta céntimos'],
    ['$10', 'diez dólares'],
    ['-7', 'menos siete'],
    ['1.500', 'mil quinientos'],
  ]);

  cases('de', [
    ['Es sind 21 Grad.', 'Es sind einundzwanzig Grad.'],
    ['1.234.567', 'eine Million zweihundertvierunddreißigtausendfünfhundertsiebenundsechzig'],
    ['3,14', 'drei Komma eins vier'],
    ['25 %', 'fünfundzwanzig Prozent'],
    ['1 €', 'ein Euro'],
    ['5,50 €', 'fünf Euro und fünfzig Cent'],
    ['15:30', 'fünfzehn Uhr dreißig'],
    ['-3', 'minus drei'],
  ]);

  cases('it', [
    ['Ho 23 anni.', 'Ho ventitré anni.'],
    ['3,14', 'tre virgola quattordici'],
    ['25 %', 'venticinque per cento'],
    ['1 €', 'un euro'],
    ['5,50 €', 'cinque euro e cinquanta centesimi'],
    ['2.000.000 €', 'due milioni di euro'],
    ['-8', 'meno otto'],
  ]);

  cases('pt-br', [
    ['Tenho 21 anos.', 'Tenho vinte e um anos.'],
    ['R$ 5,50', 'cinco reais e cinquenta centavos'],
    ['R$ 1', 'um real'],
    ['3,14', 'três vírgula catorze'],
    ['25 %', 'vinte e cinco por cento'],
    ['16', 'dezesseis'],
    ['£1', 'uma libra'],
    ['£2', 'duas libras'],
  ]);

  cases('pt-PT', [
    ['16', 'dezasseis'],
    ['2,50 €', 'dois euros e cinquenta cêntimos'],
  ]);

  cases('pt', [['16', 'dezesseis']]);

  describe('languages without a number speller', () => {
    for (const [language, text] of [
      ['ja', '今日は2024年です。3.14'],
      ['ru', 'У меня 5 кошек и $3.'],
      ['zh-cn', '我有3只猫'],
      ['xx', 'Dr. Smith paid $5 on 2024-03-15.'],
    ]) {
      it(`leaves ${language} text unchanged, digits included`, () => {
        expect(normalizeText(text!, language!)).to.equal(text);
      });
    }
  });
});

describe('normalizeText reads units out in every language it normalizes numbers for', () => {
  cases('fr', [
    // The README's example.
    [
      'Le 14 juillet 2024, il faisait 31,5 °C.',
      'Le quatorze juillet deux mille vingt-quatre, il faisait trente et un virgule cinq degrés Celsius.',
    ],
    ['1 h de route, 1,5 km, 2 kg', 'une heure de route, un virgule cinq kilomètre, deux kilogrammes'],
    ['-4 °C', 'moins quatre degrés Celsius'],
    ['100 km/h', 'cent kilomètres par heure'],
    ['1 000 000 km', 'un million de kilomètres'],
    ['15h30', 'quinze heures trente'],
  ]);
  cases('de', [
    ['31,5 °C', 'einunddreißig Komma fünf Grad Celsius'],
    ['1 h, 2 h, 5 km, 1 kg', 'eine Stunde, zwei Stunden, fünf Kilometer, ein Kilogramm'],
  ]);
  cases('es', [
    ['31,5 °C', 'treinta y uno coma cinco grados Celsius'],
    ['1 h, 2 h, 21 km', 'una hora, dos horas, veintiún kilómetros'],
  ]);
  cases('it', [
    ['31,5 °C', 'trentuno virgola cinque gradi Celsius'],
    ['1 km, 3 km, 2 h', 'un chilometro, tre chilometri, due ore'],
    ['1 h', "un'ora"],
  ]);
  cases('pt-BR', [['31,5 °C, 1 h, 3 km', 'trinta e um vírgula cinco graus Celsius, uma hora, três quilômetros']]);
  cases('pt-PT', [['3 km', 'três quilómetros']]);

  it('leaves no unit symbol unread for any language with a number speller', () => {
    for (const language of ['en', 'fr', 'de', 'es', 'it', 'pt-BR', 'pt-PT']) {
      const spoken = normalizeText('12 °C, 3 km, 4 kg, 5 l, 6 km/h, 7 min, 8 GB', language);
      expect(spoken, language).not.to.match(/°|\b(?:C|km|kg|l|min|GB)\b|\d/);
    }
  });
});
