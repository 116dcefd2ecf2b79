// Validates skillpack's --json documents against schema/*.json with Ajv,
// the validator JavaScript users reach for (its 2020-12 mode, defaults),
// beside the Go tests' own: Ajv read pack's and new's error documents as
// invalid when the Go validator did not. argv: the schema folder, and a
// JSON file of [{name, schema, doc}] (schema: a file name in the folder).
// Prints each document Ajv refuses, with why, and exits 1 if any.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats");

const [dir, list] = process.argv.slice(2);
const ajv = new Ajv2020({ allErrors: true, logger: false });
addFormats(ajv);
const ids = {};
for (const f of readdirSync(dir)) {
  const s = JSON.parse(readFileSync(`${dir}/${f}`, "utf8"));
  if (String(s.$schema).includes("2020-12")) {
    ajv.addSchema(s);
    ids[f] = s.$id;
  }
}
let bad = 0;
for (const { name, schema, doc } of JSON.parse(readFileSync(list, "utf8"))) {
  const validate = ajv.getSchema(ids[schema]);
  if (!validate) {
    console.log(`${name}: no 2020-12 schema ${schema}`);
    bad++;
  } else if (!validate(doc)) {
    console.log(`${name}: ${schema}: ${ajv.errorsText(validate.errors)}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
