-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); tablecmds.c ATColumnChangeRequiresRewrite only strips Var, RelabelType, CoerceToDomain without constraints, the timestamp casts and typmod-support no-ops: an ArrayCoerceExpr (varchar[] -> text[]) forces a rewrite although the element cast is binary
-- verified: articles and articles_pkey relfilenodes changed: varchar(30)[] -> text[] IS a rewrite (ArrayCoerceExpr is not stripped by ATColumnChangeRequiresRewrite even though the element cast is binary)
-- given: CREATE TABLE articles (id bigint PRIMARY KEY, tags varchar(30)[] NOT NULL DEFAULT '{}');
ALTER TABLE articles ALTER COLUMN tags TYPE text[];
