/** Keys a plain object answers for before any is written, or whose write changes the object itself. */
export const OBJECT_MEMBER_KEYS = [
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__proto__',
  '__defineGetter__',
] as const;
