import { describe, expect, it } from 'vitest';
import { capAddress, normalizeEmail } from '../../shared/domain/accounts/model.ts';
import { signInLimits } from '../../shared/limits.ts';

/**
 * The arithmetic docs/adr/0032-sign-in-guess-budgets-per-address-and-per-source.md gives for the
 * sign-in numbers, kept true by whoever edits them.
 */
describe('sign-in limits', () => {
  const { codeDigits, liveCodesPerAddress, guessesPerAddress, guessesPerSource } = signInLimits;
  const hoursPerYear = 366 * 24;
  const hourWindows = (window: { limit: number; windowSeconds: number }) => window.limit * Math.max(1, 3600 / window.windowSeconds);

  it('make guessing a chosen address’s code within a year, from any number of sources, under 1 % likely', () => {
    // A guess is compared with every live code of the address: each matches with 1 in 10^digits.
    const perGuess = liveCodesPerAddress / 10 ** codeDigits;
    const guessesPerYear = hourWindows(guessesPerAddress) * hoursPerYear;
    const odds = 1 - (1 - perGuess) ** guessesPerYear;
    expect(guessesPerYear).toBe(263_520);
    expect(odds).toBeLessThan(0.01);
    expect(odds).toBeCloseTo(0.0079, 4);
  });

  it('leave one source at most a third of an address’s guesses in any hour', () => {
    const perSourceHour = Math.min(...guessesPerSource.map(hourWindows));
    expect(guessesPerAddress.windowSeconds).toBe(3600);
    expect(perSourceHour * 3).toBeLessThanOrEqual(guessesPerAddress.limit);
  });
});

describe('capAddress', () => {
  it.each([
    ['Ana+news@Example.com', 'ana@example.com'],
    ['  ana@example.com ', 'ana@example.com'],
    ['ana+a+b@example.com', 'ana@example.com'],
    ['ana+@example.com', 'ana@example.com'],
    // Nothing before the tag: the local part is not a tag of anything.
    ['+news@example.com', '+news@example.com'],
    ['ana@plus+domain.example', 'ana@plus+domain.example'],
  ])('counts %s as %s', (email, expected) => {
    expect(capAddress(email)).toBe(expected);
  });

  it('leaves the account identity alone', () => {
    expect(normalizeEmail('Ana+news@Example.com')).toBe('ana+news@example.com');
  });
});
