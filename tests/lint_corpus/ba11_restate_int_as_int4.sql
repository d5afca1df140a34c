-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: a rewrite is not needed when the type does not change); int, integer and int4 name the same type, so ATColumnChangeRequiresRewrite sees a bare Var
-- verified: scores relfilenode unchanged, no scan; AccessExclusiveLock only
-- given: CREATE TABLE scores (id bigint PRIMARY KEY, player text, score integer);
alter table scores alter column score type int4;
