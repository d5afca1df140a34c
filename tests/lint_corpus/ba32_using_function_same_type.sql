-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET DATA TYPE USING: "the USING expression ... is evaluated for each row"); ATColumnChangeRequiresRewrite returns true for any FuncExpr other than the timestamp casts: lower(email) forces a rewrite although the type stays text
-- verified: members and members_pkey relfilenodes changed (rewrite)
-- given: CREATE TABLE members (id bigint PRIMARY KEY, email text NOT NULL);
ALTER TABLE members ALTER COLUMN email TYPE text USING lower(email);
