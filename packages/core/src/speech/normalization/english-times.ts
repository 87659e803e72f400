import { englishCardinal } from './english-numbers.js';
import { keepSentencePeriod } from './sentence-end.js';

const MERIDIEM = '(a\\.\\s?m\\.|p\\.\\s?m\\.|am|pm)';

/** "AM"/"a.m." -> "A M": spelled letters, the way people say it. */
function spokenMeridiem(raw: string): string {
  return raw.toLowerCase().startsWith('a') ? 'A M' : 'P M';
}

function spokenMinutes(minutes: number): string {
  return minutes < 10 ? `oh ${englishCardinal(minutes)}` : englishCardinal(minutes);
}

function spokenClock(hours: number, minutes: number, meridiem: string | undefined): string {
  const hour = englishCardinal(hours);
  if (meridiem) {
    const m = spokenMeridiem(meridiem);
    return minutes === 0 ? `${hour} ${m}` : `${hour} ${spokenMinutes(minutes)} ${m}`;
  }
  if (minutes !== 0) return `${hour} ${spokenMinutes(minutes)}`;
  // 24-hour "15:00" is "fifteen hundred"; "12:00" and "3:00" are o'clock.
  return hours >= 1 && hours <= 12 ? `${hour} o'clock` : `${hour} hundred`;
}

/**
 * Clock times: "3:45 pm" -> "three forty-five P M", "15:30" -> "fifteen thirty",
 * "12:00" -> "twelve o'clock", "9:05" -> "nine oh five", "7 a.m." -> "seven A M".
 */
export function expandEnglishTimes(text: string): string {
  const clock = new RegExp(`(?<![\\p{N}:.])(\\d{1,2}):(\\d{2})(?::(\\d{2}))?(?![\\p{N}:])(?:\\s?${MERIDIEM}(?!\\p{L}))?`, 'giu');
  const bareHour = new RegExp(`(?<![\\p{N}:.,])(\\d{1,2})\\s?${MERIDIEM}(?!\\p{L})`, 'giu');
  return text
    .replace(clock, (matched, h: string, m: string, s: string | undefined, meridiem: string | undefined, offset: number, whole: string) => {
      const [hours, minutes] = [Number(h), Number(m)];
      const maxHours = meridiem ? 12 : 23;
      if (hours > maxHours || minutes > 59 || (s !== undefined && Number(s) > 59)) return matched;
      let spoken = spokenClock(hours, minutes, meridiem);
      if (s !== undefined) spoken += ` and ${englishCardinal(s)} ${Number(s) === 1 ? 'second' : 'seconds'}`;
      return keepSentencePeriod(spoken, matched, whole.slice(offset + matched.length));
    })
    .replace(bareHour, (matched, h: string, meridiem: string, offset: number, whole: string) => {
      const hours = Number(h);
      if (hours < 1 || hours > 12) return matched;
      const spoken = `${englishCardinal(hours)} ${spokenMeridiem(meridiem)}`;
      return keepSentencePeriod(spoken, matched, whole.slice(offset + matched.length));
    });
}
