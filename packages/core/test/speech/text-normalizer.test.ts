import { expect } from 'chai';
import { normalizeText } from '../../src/speech/text-normalizer.js';

/** Each pair: input -> exact English output. */
function cases(title: string, pairs: Array<[string, string]>): void {
  describe(title, () => {
    for (const [input, expected] of pairs) {
      it(`${JSON.stringify(input)} -> ${JSON.stringify(expected)}`, () => {
        expect(normalizeText(input, 'en')).to.equal(expected);
      });
    }
  });
}

describe('normalizeText (English)', () => {
  cases('cardinal numbers', [
    ['0', 'zero'],
    ['7', 'seven'],
    ['13', 'thirteen'],
    ['42', 'forty-two'],
    ['100', 'one hundred'],
    ['101', 'one hundred one'],
    ['999', 'nine hundred ninety-nine'],
    ['1000', 'one thousand'],
    ['12345', 'twelve thousand three hundred forty-five'],
    ['1,234,567', 'one million two hundred thirty-four thousand five hundred sixty-seven'],
    ['1,000,000,000', 'one billion'],
    ['I have 3 cats.', 'I have three cats.'],
    ['-5', 'minus five'],
    ['It was -12 outside.', 'It was minus twelve outside.'],
  ]);

  cases('decimals', [
    ['3.14', 'three point one four'],
    ['0.5', 'zero point five'],
    ['.5', 'point five'],
    ['-2.75', 'minus two point seven five'],
    ['Pi is 3.14159.', 'Pi is three point one four one five nine.'],
  ]);

  cases('numbers that are read digit by digit or attached to words', [
    ['007', 'zero zero seven'],
    ['12345678901234567890', 'one two three four five six seven eight nine zero one two three four five six seven eight nine zero'],
    ['3D', 'three D'],
    ['MP3', 'MP three'],
    ['COVID-19', 'COVID-nineteen'],
    ['pages 10-20', 'pages ten-twenty'],
    ['version 2.0.1', 'version two point zero point one'],
  ]);

  cases('ordinals', [
    ['1st', 'first'],
    ['2nd', 'second'],
    ['3rd', 'third'],
    ['4th', 'fourth'],
    ['12th', 'twelfth'],
    ['20th', 'twentieth'],
    ['22nd', 'twenty-second'],
    ['103rd', 'one hundred third'],
    ['the 1,000th visitor', 'the one thousandth visitor'],
  ]);

  cases('years', [
    ['in 1999', 'in nineteen ninety-nine'],
    ['in 2005', 'in two thousand five'],
    ['in 2024', 'in twenty twenty-four'],
    ['since 1905', 'since nineteen oh five'],
    ['in 1900', 'in nineteen hundred'],
    ['in 2000', 'in two thousand'],
    ['in 2010', 'in twenty ten'],
    ['by 1066', 'by ten sixty-six'],
    ['from 1999-2005', 'from nineteen ninety-nine to two thousand five'],
    ['44 BC', 'forty-four B C'],
    ['the 1990s', 'the nineteen nineties'],
    ["the '80s", 'the eighties'],
    ['1999 people', 'one thousand nine hundred ninety-nine people'],
  ]);

  cases('dates', [
    ['2024-03-15', 'March fifteenth, twenty twenty-four'],
    ['03/15/2024', 'March fifteenth, twenty twenty-four'],
    ['15/03/2024', 'March fifteenth, twenty twenty-four'],
    ['15.03.2024', 'March fifteenth, twenty twenty-four'],
    ['1/2/2005', 'January second, two thousand five'],
    ['March 15', 'March fifteenth'],
    ['March 15th', 'March fifteenth'],
    ['Due March 15, 2024.', 'Due March fifteenth, twenty twenty-four.'],
    ['Jan. 1', 'January first'],
    ['On 4 July 1776', 'On the fourth of July, seventeen seventy-six'],
    ['in March 2024', 'in March twenty twenty-four'],
    ['2024-13-45', 'two thousand twenty-four-thirteen-forty-five'],
  ]);

  cases('times', [
    ['3:45 pm', 'three forty-five P M'],
    ['3:45 PM', 'three forty-five P M'],
    ['15:30', 'fifteen thirty'],
    ['12:00', "twelve o'clock"],
    ['9:05', 'nine oh five'],
    ['7 a.m.', 'seven A M.'],
    ['7 a.m. today', 'seven A M today'],
    ['at 11pm', 'at eleven P M'],
    ['3:00 pm', 'three P M'],
    ['18:00', 'eighteen hundred'],
    ['10:15:30', 'ten fifteen and thirty seconds'],
    ['Leave at 5 p.m. Then rest.', 'Leave at five P M. Then rest.'],
  ]);

  cases('currency', [
    ['$5', 'five dollars'],
    ['$1', 'one dollar'],
    ['$5.50', 'five dollars and fifty cents'],
    ['$0.99', 'ninety-nine cents'],
    ['$1.01', 'one dollar and one cent'],
    ['$5.00', 'five dollars'],
    ['$1,250', 'one thousand two hundred fifty dollars'],
    ['€3', 'three euros'],
    ['€1.50', 'one euro and fifty cents'],
    ['£10', 'ten pounds'],
    ['£2.50', 'two pounds and fifty pence'],
    ['¥500', 'five hundred yen'],
    ['USD 20', 'twenty US dollars'],
    ['20 EUR', 'twenty euros'],
    ['5 €', 'five euros'],
    ['$2.5 million', 'two point five million dollars'],
    ['$5k', 'five thousand dollars'],
    ['-$3', 'minus three dollars'],
    ['It costs $5.', 'It costs five dollars.'],
  ]);

  cases('percentages', [
    ['50%', 'fifty percent'],
    ['3.5 %', 'three point five percent'],
    ['-2%', 'minus two percent'],
    ['100%', 'one hundred percent'],
  ]);

  cases('units', [
    ['5 km', 'five kilometers'],
    ['1 km', 'one kilometer'],
    ['2.5 kg', 'two point five kilograms'],
    ['1 kg', 'one kilogram'],
    ['3 m', 'three meters'],
    ['1 m', 'one meter'],
    ['30 cm', 'thirty centimeters'],
    ['4 mm', 'four millimeters'],
    ['26.2 mi', 'twenty-six point two miles'],
    ['1 lb', 'one pound'],
    ['10 lbs', 'ten pounds'],
    ['8 oz', 'eight ounces'],
    ['20°C', 'twenty degrees Celsius'],
    ['1 °C', 'one degree Celsius'],
    ['-1 °F', 'minus one degree Fahrenheit'],
    ['90°', 'ninety degrees'],
    ['100 km/h', 'one hundred kilometers per hour'],
    ['60 mph', 'sixty miles per hour'],
    ['16 GB', 'sixteen gigabytes'],
    ['1 MB', 'one megabyte'],
    ['200 ms', 'two hundred milliseconds'],
    ['1 s', 'one second'],
    ['30 s', 'thirty seconds'],
    ['2 h', 'two hours'],
    ['1 h', 'one hour'],
    ['10 min', 'ten minutes'],
    ['1 min', 'one minute'],
    ['5km', 'five kilometers'],
  ]);

  cases('abbreviations', [
    ['Dr. Smith', 'Doctor Smith'],
    ['Mr. Jones', 'Mister Jones'],
    ['Mrs. Brown', 'Missus Brown'],
    ['Ms. Lee', 'Miz Lee'],
    ['St. Patrick', 'Saint Patrick'],
    ['on Main St.', 'on Main Street.'],
    ['fruit, e.g. apples', 'fruit, for example apples'],
    ['fruit, i.e. apples', 'fruit, that is apples'],
    ['apples, pears, etc.', 'apples, pears, et cetera.'],
    ['apples, etc. and more', 'apples, et cetera and more'],
    ['cats vs. dogs', 'cats versus dogs'],
    ['No. 5', 'number five'],
    ['No. I refuse.', 'No. I refuse.'],
    ['the U.S. economy', 'the U S economy'],
    ['I live in the U.S. It is big.', 'I live in the U S. It is big.'],
  ]);

  cases('symbols', [
    ['Tom & Jerry', 'Tom and Jerry'],
    ['2 + 2 = 4', 'two plus two equals four'],
    ['me@example.com', 'me at example.com'],
    ['C++', 'C plus plus'],
    ['#1 fan', 'number one fan'],
    ['1/2 cup', 'one half cup'],
    ['3/4', 'three quarters'],
    ['2/3', 'two thirds'],
    ['24/7', 'twenty-four seven'],
  ]);

  describe('mixed text', () => {
    it('normalizes a whole sentence', () => {
      expect(normalizeText('On 2024-03-15 at 3:45 pm, Dr. Smith paid $5.50 for 2.5 kg (50% off).', 'en')).to.equal(
        'On March fifteenth, twenty twenty-four at three forty-five P M, Doctor Smith paid five dollars and fifty cents for two point five kilograms (fifty percent off).',
      );
    });

    it('leaves text without anything to expand unchanged', () => {
      expect(normalizeText('Hello, world! How are you?', 'en')).to.equal('Hello, world! How are you?');
    });

    it('keeps newlines and collapses runs of spaces', () => {
      expect(normalizeText('a   b\nc', 'en')).to.equal('a b\nc');
    });

    it('accepts region tags in any case', () => {
      for (const tag of ['en-us', 'en-GB', 'EN', 'en_AU']) expect(normalizeText('$5', tag)).to.equal('five dollars');
    });

    it('leaves no digits behind in a number-heavy text', () => {
      const out = normalizeText('Call 2 people at 10:30, pay $12.99, run 5 km in 1999, score 98.6% on the 3rd try; 1,024 MB.', 'en');
      expect(out).not.to.match(/\d/);
    });
  });
});
