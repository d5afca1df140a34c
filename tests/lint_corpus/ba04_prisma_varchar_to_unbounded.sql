-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: binary coercible); varchar_support: dropping the length limit (typmod -1) removes the length coercion, leaving a Var
-- verified: "User" relfilenode unchanged; only AccessExclusiveLock, no scan
-- given: CREATE TABLE "User" ("id" SERIAL NOT NULL, "displayName" VARCHAR(40), CONSTRAINT "User_pkey" PRIMARY KEY ("id"));
ALTER TABLE "User" ALTER COLUMN "displayName" SET DATA TYPE VARCHAR;
