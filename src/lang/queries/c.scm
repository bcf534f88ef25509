; C at breadth: added to queries/c-family.scm. Captures: docs/languages.md.
(variadic_parameter) @parameter @parameter.variadic
