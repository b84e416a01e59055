/**
 * strptime (pure): DuckDB's StrpTimeFormat (src/function/scalar/strftime_format.cpp,
 * ParseFormatSpecifier and StrpTimeFormat::Parse, DuckDB 1.5), reproduced step by step over the
 * UTF-8 bytes of the text as DuckDB reads them: numbers of at most the specifier's width
 * (`%Y` 4 digits, `%d` 2, `%f` 6, ...), names matched case-insensitively by prefix in DuckDB's
 * order, runs of white space in the format matching runs (at least one) in the text, leading
 * and trailing white space skipped, week (`%U %W %w`), ISO (`%G %V %u`) and day-of-year (`%j`)
 * dates resolved as DuckDB resolves them, and the specials `infinity`, `-infinity` and `epoch`.
 * The result is canopy's timestamp (µs since 1970, no zone); with `%z` the instant, the local
 * time less the offset, as DuckDB's TIMESTAMP WITH TIME ZONE in a UTC session.
 */
import { CanopyError } from './errors.ts';
import { DAY_NAMES, MAX_TIMESTAMP_US, MONTH_NAMES, US_PER_DAY, civilFromDays, daysFromCivil, daysInMonth } from './time.ts';

/**
 * Width of each strptime specifier DuckDB reads as a number (the most digits it takes), by its
 * letter (`-d` for `%-d`); the others are names, AM/PM, offsets and zone names.
 */
const NUMERIC_WIDTH: Readonly<Record<string, number>> = {
  w: 1, u: 1,
  d: 2, '-d': 2, m: 2, '-m': 2, y: 2, '-y': 2, H: 2, '-H': 2, I: 2, '-I': 2, M: 2, '-M': 2, S: 2, '-S': 2, U: 2, W: 2, V: 2,
  g: 3, j: 3, '-j': 3,
  Y: 4, G: 4,
  f: 6,
  n: 9,
};
/** The specifiers besides the numeric ones. */
const OTHER_SPECIFIERS = new Set(['a', 'A', 'b', 'h', 'B', 'p', 'z', 'Z']);
/** DuckDB's locale formats, pushed as their specifiers (`%c` is `%Y-%m-%d %H:%M:%S`). */
const LOCALE_FORMATS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  c: [['', 'Y'], ['-', 'm'], ['-', 'd'], [' ', 'H'], [':', 'M'], [':', 'S']],
  x: [['', 'Y'], ['-', 'm'], ['-', 'd']],
  X: [['', 'H'], [':', 'M'], [':', 'S']],
  T: [['', 'H'], [':', 'M'], [':', 'S']],
};

/** A parsed strptime format: literals[i] precedes specifiers[i]; literals has one more entry (what follows the last). */
export interface StrpFormat {
  readonly text: string;
  readonly literals: readonly Uint8Array[];
  readonly specifiers: readonly string[];
}

const utf8 = new TextEncoder();

/**
 * A strptime/strftime format as DuckDB's ParseFormatSpecifier reads it (`%%` is a `%`, `%-x`
 * the unpadded forms of d m y H I M S j, `%c %x %X %T` the ISO forms).
 * @returns the format, or DuckDB's error message for it ('Empty format string',
 *   'Trailing format character %', 'Unrecognized format for strftime/strptime: %Q')
 */
export function parseTimeFormat(format: string): StrpFormat | string {
  if (format === '') return 'Empty format string';
  const literals: Uint8Array[] = [];
  const specifiers: string[] = [];
  let literal = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%') {
      literal += c;
      continue;
    }
    if (i + 1 === format.length) return 'Trailing format character %';
    let spec = format[++i]!;
    if (spec === '%') {
      literal += '%';
      continue;
    }
    if (spec === '-' && i + 1 < format.length) {
      spec = `-${format[++i]!}`;
      if (!['-d', '-m', '-y', '-H', '-I', '-M', '-S', '-j'].includes(spec)) return `Unrecognized format for strftime/strptime: %${spec}`;
    } else if (LOCALE_FORMATS[spec] !== undefined) {
      LOCALE_FORMATS[spec]!.forEach(([lit, s], k) => {
        literals.push(utf8.encode(k === 0 ? literal + lit : lit));
        specifiers.push(s);
      });
      literal = '';
      continue;
    } else if (NUMERIC_WIDTH[spec] === undefined && !OTHER_SPECIFIERS.has(spec)) {
      return `Unrecognized format for strftime/strptime: %${spec}`;
    }
    literals.push(utf8.encode(literal));
    specifiers.push(spec);
    literal = '';
  }
  literals.push(utf8.encode(literal));
  return { text: format, literals, specifiers };
}

/** The date and time fields DuckDB's Parse fills: year, month, day, hour, minute, second, nanoseconds. */
/** Year, month, day, hour, minute, second, nanoseconds, and the UTC offset in minutes (%z). */
type Fields = [number, number, number, number, number, number, number, number];

/** What one format made of a text: fields, a special (infinity, -infinity, epoch), or nothing. */
export type StrpParsed = { readonly kind: 'fields'; readonly fields: Fields } | { readonly kind: 'special'; readonly special: 'infinity' | '-infinity' | 'epoch' } | { readonly kind: 'fail' };

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);
const isSpace = (b: number | undefined): boolean => b !== undefined && SPACE.has(b);
const isDigit = (b: number | undefined): boolean => b !== undefined && b >= 0x30 && b <= 0x39;
const lower = (b: number): number => (b >= 0x41 && b <= 0x5a ? b + 32 : b);
const NAMES = {
  a: DAY_NAMES.map((d) => utf8.encode(d.slice(0, 3))),
  A: DAY_NAMES.map((d) => utf8.encode(d)),
  b: MONTH_NAMES.map((m) => utf8.encode(m.slice(0, 3))),
  B: MONTH_NAMES.map((m) => utf8.encode(m)),
};

/** Index of the first of `names` that `data` holds at `pos` (ASCII case ignored), and the position after it; -1 when none. */
function matchName(data: Uint8Array, pos: number, names: readonly Uint8Array[]): [number, number] {
  for (let c = 0; c < names.length; c++) {
    const e = names[c]!;
    if (pos + e.length > data.length) continue;
    let i = 0;
    while (i < e.length && lower(e[i]!) === lower(data[pos + i]!)) i++;
    if (i === e.length) return [c, pos + e.length];
  }
  return [-1, pos];
}

/** Date::TryConvertDateSpecial: `special` (lower case) at the start of `data`, case ignored. */
function startsWithSpecial(data: Uint8Array, special: string): boolean {
  if (data.length < special.length) return false;
  for (let i = 0; i < special.length; i++) if (lower(data[i]!) !== special.charCodeAt(i)) return false;
  return true;
}

/** Monday of the ISO week holding day number `day` (days since 1970). */
const mondayOf = (day: number): number => day - ((((day + 3) % 7) + 7) % 7);

/**
 * DuckDB's StrpTimeFormat::Parse (not strict) of `text` by `format`: the fields, a special, or
 * a failure. Fields are not yet checked as a date (2001-02-30 passes here, as in DuckDB).
 */
export function strptimeFields(text: string, format: StrpFormat): StrpParsed {
  let data = utf8.encode(text);
  let start = 0;
  while (isSpace(data[start])) start++;
  data = data.subarray(start);
  const size = data.length;
  if (size > 4) {
    const special = isAlpha(data[0]!) ? (startsWithSpecial(data, 'infinity') ? 'infinity' : startsWithSpecial(data, 'epoch') ? 'epoch' : null) : data[0] === 0x2d && startsWithSpecial(data, '-infinity') ? '-infinity' : null;
    if (special !== null) {
      let p = special.length;
      while (p < size && isSpace(data[p])) p++;
      return p === size ? { kind: 'special', special } : { kind: 'fail' };
    }
  }
  const r: Fields = [1900, 1, 1, 0, 0, 0, 0, 0];
  let ampm: 'am' | 'pm' | null = null;
  let offset = 'w';
  let weekno = 0;
  let weekday = 0;
  let yearday = 0;
  let hasWeekday = false;
  let isoYear = 10000;
  let isoWeek = 54;
  let isoWeekday = 8;
  let pos = 0;
  const fail: StrpParsed = { kind: 'fail' };
  const { literals, specifiers } = format;
  for (let i = 0; ; i++) {
    const literal = literals[i]!;
    for (let l = 0; l < literal.length; ) {
      if (isSpace(literal[l])) {
        if (!isSpace(data[pos])) return fail;
        for (++pos; pos < size && isSpace(data[pos]); ++pos);
        for (++l; l < literal.length && isSpace(literal[l]); ++l);
        continue;
      }
      if (pos >= size || data[pos++] !== literal[l++]) return fail;
    }
    if (i === specifiers.length) break;
    const spec = specifiers[i]!;
    const width = NUMERIC_WIDTH[spec];
    if (width !== undefined) {
      let number = 0;
      let digits = 0;
      const from = pos;
      while (pos < size && pos < from + width && isDigit(data[pos])) {
        number = number * 10 + data[pos]! - 0x30;
        pos++;
        digits++;
      }
      if (pos === from) return fail;
      switch (spec) {
        case 'd':
        case '-d':
          if (number < 1 || number > 31) return fail;
          r[2] = number;
          offset = spec;
          break;
        case 'm':
        case '-m':
          if (number < 1 || number > 12) return fail;
          r[1] = number;
          offset = spec;
          break;
        case 'y':
        case '-y':
        case 'Y':
          if (offset === 'G' || offset === 'V' || offset === 'w') offset = spec;
          if (spec === 'Y') r[0] = number;
          else if (number >= 100) return fail;
          else r[0] = number >= 69 ? 1900 + number : 2000 + number;
          break;
        case 'G':
          if (offset === 'w') offset = spec;
          else if (offset === 'G' || offset === 'V') {
            if (isoYear <= 9999) return fail;
          } else if (!['d', '-d', 'm', '-m', 'y', '-y', 'Y'].includes(offset)) return fail;
          isoYear = number;
          break;
        case 'H':
        case '-H':
          if (number >= 24) return fail;
          r[3] = number;
          break;
        case 'I':
        case '-I':
          if (number < 1 || number > 12) return fail;
          r[3] = number;
          break;
        case 'M':
        case '-M':
          if (number >= 60) return fail;
          r[4] = number;
          break;
        case 'S':
        case '-S':
          if (number >= 60) return fail;
          r[5] = number;
          break;
        case 'n':
        case 'f':
        case 'g':
          for (; digits < width; digits++) number *= 10;
          r[6] = spec === 'n' ? number : spec === 'f' ? number * 1000 : number * 1_000_000;
          break;
        case 'U':
        case 'W':
          if (['y', '-y', 'Y', 'w'].includes(offset)) offset = spec;
          else if (!['d', '-d', 'm', '-m'].includes(offset)) return fail;
          if (number > 53) return fail;
          weekno = number;
          break;
        case 'w':
          if (number > 6) return fail;
          hasWeekday = true;
          weekday = number;
          break;
        case 'V':
          if (['y', '-y', 'Y'].includes(offset)) return fail;
          if (offset === 'w') offset = spec;
          else if (offset === 'G' || offset === 'V') {
            if (isoWeek <= 53) return fail;
          } else if (!['d', '-d', 'm', '-m'].includes(offset)) return fail;
          if (number < 1 || number > 53) return fail;
          isoWeek = number;
          break;
        case 'u':
          if (isoWeekday <= 7 || number < 1 || number > 7) return fail;
          isoWeekday = number;
          break;
        default:
          // j, -j
          if (['y', '-y', 'Y', 'w'].includes(offset)) offset = spec;
          else if (!['d', '-d', 'm', '-m'].includes(offset)) return fail;
          if (number < 1 || number > 366) return fail;
          yearday = number;
          break;
      }
    } else if (spec === 'p') {
      if (pos + 2 > size || lower(data[pos + 1]!) !== 0x6d) return fail;
      const pa = lower(data[pos]!);
      if (pa === 0x70) ampm = 'pm';
      else if (pa === 0x61) ampm = 'am';
      else return fail;
      pos += 2;
    } else if (spec === 'a' || spec === 'A' || spec === 'b' || spec === 'h' || spec === 'B') {
      const [k, next] = matchName(data, pos, NAMES[spec === 'h' ? 'b' : spec]);
      if (k < 0) return fail;
      pos = next;
      if (spec === 'b' || spec === 'h' || spec === 'B') r[1] = k + 1;
    } else if (spec === 'z') {
      const next = utcOffset(data, pos, size, r);
      if (next < 0) return fail;
      pos = next;
    } else {
      throw new CanopyError('CANOPY_ERR_INTERNAL', `strptime specifier %${spec} reached the parser; the planner refuses it`);
    }
  }
  while (pos < size && isSpace(data[pos])) pos++;
  if (pos !== size) return fail;
  if (ampm !== null) {
    if (r[3] > 12) return fail;
    if (ampm === 'am' && r[3] === 12) r[3] = 0;
    if (ampm === 'pm' && r[3] !== 12) r[3] += 12;
  }
  let day: number | null = null;
  if (offset === 'G' || offset === 'V') {
    const y = isoYear > 9999 ? 1900 : isoYear;
    day = mondayOf(daysFromCivil(y, 1, 4)) + ((isoWeek > 53 ? 1 : isoWeek) - 1) * 7 + ((isoWeekday > 7 ? 1 : isoWeekday) - 1);
  } else if (offset === 'U' || offset === 'W') {
    if (hasWeekday) weekday = (weekday + 7 - (offset === 'W' ? 1 : 0)) % 7;
    const jan1 = daysFromCivil(r[0], 1, 1);
    let d = mondayOf(jan1) - (offset === 'U' ? 1 : 0);
    if (d >= jan1) d -= 7;
    day = d + weekno * 7 + weekday;
  } else if (offset === 'j' || offset === '-j') {
    day = daysFromCivil(r[0], 1, 1) + yearday - 1;
  }
  if (day !== null) {
    const c = civilFromDays(day);
    r[0] = c.year;
    r[1] = c.month;
    r[2] = c.day;
  }
  return { kind: 'fields', fields: r };
}

/**
 * DuckDB's Timestamp::TryParseUTCOffset for %z at `pos`: a sign and two hour digits, then
 * optionally `MM` or `:MM` (a ':' without two digits after it is read, the digits not); the
 * offset in minutes goes to `r[7]`, signed as the hours.
 * @returns the position after it, or -1 when there is no offset there
 */
function utcOffset(data: Uint8Array, pos: number, size: number, r: Fields): number {
  if (pos + 3 > size) return -1;
  const sign = data[pos];
  if (sign !== 0x2b && sign !== 0x2d) return -1;
  let p = pos + 1;
  if (!isDigit(data[p]) || !isDigit(data[p + 1])) return -1;
  const hours = (data[p]! - 0x30) * 10 + (data[p + 1]! - 0x30);
  p += 2;
  let minutes = 0;
  if (p < size) {
    if (data[p] === 0x3a) p++;
    if (p + 2 <= size && isDigit(data[p]) && isDigit(data[p + 1])) {
      minutes = (data[p]! - 0x30) * 10 + (data[p + 1]! - 0x30);
      p += 2;
    }
  }
  r[7] = (sign === 0x2d ? -1 : 1) * (hours * 60 + minutes);
  return p;
}

function isAlpha(b: number): boolean {
  const l = lower(b);
  return l >= 0x61 && l <= 0x7a;
}

/** µs since 1970 of parsed fields (microseconds rounded from the nanoseconds half up, as DuckDB's GetMicros), or null when they are not a date. */
function fieldsMicros(f: Fields): number | null {
  const [y, m, d, hh, mi, ss, ns, offset] = f;
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null;
  // A %z offset gives the instant (DuckDB's TIMESTAMP WITH TIME ZONE): the local time less the offset.
  return daysFromCivil(y, m, d) * US_PER_DAY + ((hh * 60 + mi - offset) * 60 + ss) * 1_000_000 + Math.floor((ns + 500) / 1000);
}

const formats = new Map<string, StrpFormat>();

/** A format parsed once (formats are literals; a few per query). @throws CanopyError CANOPY_ERR_BAD_QUERY for a bad format */
export function strpFormat(format: string): StrpFormat {
  let f = formats.get(format);
  if (f === undefined) {
    const parsed = parseTimeFormat(format);
    if (typeof parsed === 'string') throw new CanopyError('CANOPY_ERR_BAD_QUERY', `strptime: failed to parse format specifier ${format}: ${parsed}`);
    if (formats.size >= 256) formats.clear();
    formats.set(format, parsed);
    f = parsed;
  }
  return f;
}

const outOfRange = (message: string): never => {
  throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', message);
};

/**
 * DuckDB's strptime(text, format) / strptime(text, [formats]) (`tryParse` false) and
 * try_strptime (true), as a canopy timestamp. strptime takes the first format that parses and
 * fails when none does or when that one names no date (2001-02-30: DuckDB's 'Date out of
 * range'); try_strptime takes the first format that gives a date, else NULL, and gives
 * 1900-01-01 for the specials 'infinity' and 'epoch' (DuckDB's TryToTimestamp reads the
 * defaults). strptime's 'epoch' is 1970-01-01.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE (strptime's failures, with DuckDB's message; an
 *   infinite timestamp or one outside ±2^53 µs, which canopy does not hold, for either function)
 */
export function strptime(text: string, formatTexts: readonly string[], tryParse: boolean): number | null {
  for (const ft of formatTexts) {
    const parsed = strptimeFields(text, strpFormat(ft));
    if (parsed.kind === 'fail') continue;
    let us: number | null;
    if (parsed.kind === 'special') {
      if (tryParse) us = daysFromCivil(1900, 1, 1) * US_PER_DAY;
      else if (parsed.special === 'epoch') us = 0;
      else return outOfRange(`strptime('${text}', '${ft}') is ${parsed.special}, a timestamp canopy does not hold`);
    } else {
      us = fieldsMicros(parsed.fields);
      if (us === null) {
        if (tryParse) continue;
        const [y, m, d] = parsed.fields;
        return outOfRange(`strptime('${text}', '${ft}'): date out of range: ${y}-${m}-${d}`);
      }
    }
    if (!(Math.abs(us) <= MAX_TIMESTAMP_US)) return outOfRange(`strptime('${text}', '${ft}') is outside the timestamps canopy holds exactly (±2^53 µs around 1970: the years 1685 to 2255)`);
    return us;
  }
  if (tryParse) return null;
  return outOfRange(`Could not parse string "${text}" according to format specifier "${formatTexts[0] ?? ''}"`);
}
