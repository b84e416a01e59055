/** The part of jStat 1.9 (no published types) that canopy uses: Student's t and F quantiles. */
declare module 'jstat' {
  const jStat: {
    readonly studentt: {
      /** The p-quantile of Student's t with `dof` degrees of freedom. */
      inv(p: number, dof: number): number;
    };
    readonly centralF: {
      /** The p-quantile of the F distribution with (`df1`, `df2`) degrees of freedom. */
      inv(p: number, df1: number, df2: number): number;
    };
  };
  export default jStat;
}
