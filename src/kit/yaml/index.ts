/** YAML as every file qitos reads is parsed: with alias expansion capped and errors that name line and column. */
export { MAX_YAML_ALIASES, YamlError, parseYaml, type ParsedYaml } from './parse-yaml.js';
