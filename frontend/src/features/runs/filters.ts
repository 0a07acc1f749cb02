// The runs list's value filters: a typed name to the query parameter that takes it.

/** A typed filter name as the runs list takes it: `label.X` a label, `param.X` a parameter, a bare
 * name the parameter when the workload has one of that name, else the label. */
export function filterKind(name: string, parameters: readonly string[]): ["label" | "param", string] {
  if (name.startsWith("label.")) return ["label", name.slice(6)];
  if (name.startsWith("param.")) return ["param", name.slice(6)];
  return [parameters.includes(name) ? "param" : "label", name];
}
