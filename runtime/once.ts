/** `fn`, callable any number of times, run on the first call only: a release that may be called twice. */
export function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
