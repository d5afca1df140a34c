-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: only a binary-coercible change or an unconstrained domain skips the rewrite); pg_cast.dat bit -> varbit is castmethod b, but the typmod coercion to varbit(8) remains in the expression and ATColumnChangeRequiresRewrite does not treat it as a no-op: rewrite (observed)
-- verified: features and features_pkey relfilenodes changed: bit(8) -> varbit(8) rewrites despite the binary bit->varbit cast
-- given: CREATE TABLE features (id bigint PRIMARY KEY, mask bit(8) NOT NULL);
ALTER TABLE features ALTER COLUMN mask TYPE varbit(8);
