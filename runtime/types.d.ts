declare module 'seedrandom/lib/alea.js' {
  const alea: (seed: string) => { (): number; int32(): number; double(): number };
  export default alea;
}
