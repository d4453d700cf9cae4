/**
 * Whether `work` resolves within `timeoutMs` milliseconds: false when it rejects or is slower
 * (its later outcome is ignored). Never throws; the timer never keeps the process alive.
 */
export async function settlesWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
