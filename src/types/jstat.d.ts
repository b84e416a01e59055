/** The part of jStat 1.9 (no published types) that canopy uses: Student's t quantile. */
declare module 'jstat' {
  const jStat: {
    readonly studentt: {
      /** The p-quantile of Student's t with `dof` degrees of freedom. */
      inv(p: number, dof: number): number;
    };
  };
  export default jStat;
}
