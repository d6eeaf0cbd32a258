//! `rigtrip game list|extract|install|uninstall`: the game's own files, by its own lookup, and
//! rigtrip's volume of installed files.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use rigtrip::native::finding::Finding;
use rigtrip::ops::game::{self, install, list, Game};
use rigtrip::ops::output::{check_target, json_doc, write_atomic, Head};

/// `rigtrip game`.
#[derive(Args, Debug)]
pub struct GameArgs {
    /// The game's folder: the one holding DMC3-0.nbz (the HD Collection's install folder; any
    /// case, Windows paths).
    #[arg(long, value_name = "DIR", global = true)]
    pub game: Option<PathBuf>,
    #[command(subcommand)]
    pub command: GameCommand,
}

/// The `game` subcommands.
#[derive(Subcommand, Debug)]
pub enum GameCommand {
    /// Every file the game would load, by its own lookup: the volume (or the loose folder) it
    /// comes from and the copies it overrides.
    #[command(
        after_help = "A FILTER with * or ? is matched against the whole name, else as a part \
of it, in any case. Exit 1 when part of the answer is uncertain (a damaged volume, a name held \
twice in one volume), 2 when the folder cannot be read.\n\n\
Examples:\n  rigtrip game list --game \"C:\\Games\\Devil May Cry HD Collection\" pl000\n  \
rigtrip game list --game ~/dmc3 'em0*.pac' --json"
    )]
    List(ListArgs),
    /// Write the bytes the game would load for each NAME into a folder, exactly.
    #[command(
        after_help = "A NAME is cut to its base name and lower-cased, as the game asks for \
it (GData.afs/PL000.PAC is pl000.pac); each is written as DIR/<name>, never over a file unless \
--force.\n\n\
Examples:\n  rigtrip game extract --game ~/dmc3 pl000.pac pl000_00_0.pac -o work/"
    )]
    Extract(ExtractArgs),
    /// Install files into the game: into a volume of rigtrip's own, searched before the
    /// game's, as GData.afs/<name>.
    #[command(
        after_help = "rigtrip's volume is the next number after the game's volumes \
(DMC3-1.nbz beside a lone DMC3-0.nbz), or the one rigtrip wrote before (known by the mark in \
its ZIP comment), written whole to a new file and renamed over: a volume rigtrip did not write \
is never touched. Each file is checked first (rigtrip check) and refused when it would stop the \
game; it is refused too when another mod's copy would still be loaded first. --force installs \
it all the same. The report names what each file now overrides.\n\n\
Examples:\n  rigtrip game install --game ~/dmc3 pl000.pac\n  \
rigtrip game install --game ~/dmc3 work/pl000_edit.pac --as pl000.pac"
    )]
    Install(InstallArgs),
    /// Remove files rigtrip installed: the named ones, or its whole volume.
    #[command(
        after_help = "Only rigtrip's own volume is changed or deleted. Its whole removal is \
refused while another volume follows it (the game would stop loading that one): remove files by \
name then, which keeps the volume.\n\n\
Examples:\n  rigtrip game uninstall --game ~/dmc3 pl000.pac\n  rigtrip game uninstall --game ~/dmc3"
    )]
    Uninstall(UninstallArgs),
}

/// `game list`.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Names, parts of names or globs (`pl0*.pac`): only the files that match.
    pub filters: Vec<String>,
    /// Print the listing as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `game extract`.
#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// The names to extract (as the game asks for them: pl000.pac).
    #[arg(required = true)]
    pub names: Vec<String>,
    /// The folder to write them into (made when missing).
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Overwrite files already there.
    #[arg(long)]
    pub force: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `game install`.
#[derive(Args, Debug)]
pub struct InstallArgs {
    /// The files to install (each under its own name, lower-cased).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The name the game asks for, when it is not the file's (one file only).
    #[arg(long = "as", value_name = "NAME")]
    pub as_name: Option<String>,
    /// Install past what would stop the game, and past another mod's copy loaded first.
    #[arg(long)]
    pub force: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `game uninstall`.
#[derive(Args, Debug)]
pub struct UninstallArgs {
    /// The names to remove (none: rigtrip's whole volume).
    pub names: Vec<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

impl GameArgs {
    /// Whether `--json` was given.
    pub fn json(&self) -> bool {
        match &self.command {
            GameCommand::List(a) => a.json,
            GameCommand::Extract(a) => a.json,
            GameCommand::Install(a) => a.json,
            GameCommand::Uninstall(a) => a.json,
        }
    }
}

/// Runs `rigtrip game ...`; returns the exit code.
pub fn run(quiet: bool, a: &GameArgs) -> Result<i32> {
    let Some(dir) = &a.game else {
        bail!("--game DIR is needed: the game's folder, the one holding DMC3-0.nbz");
    };
    let game = Game::open(dir)?;
    let head = |code: i32| Head {
        path: Some(dir.display().to_string()),
        ..Head::exit(code)
    };
    let mut out = std::io::stdout().lock();
    match &a.command {
        GameCommand::List(l) => {
            let r = list::list(&game, &l.filters);
            match l.json {
                true => write!(out, "{}", json_doc(&head(r.exit_code()), &r))?,
                false => write!(out, "{}", list::render_text(&r))?,
            }
            Ok(r.exit_code())
        }
        GameCommand::Extract(x) => extract(&game, x, head(0), quiet),
        GameCommand::Install(i) => install_cmd(&game, i, head(0), quiet),
        GameCommand::Uninstall(u) => {
            let r = install::uninstall(&game, &u.names)?;
            let h = Head {
                output: r
                    .volume
                    .as_ref()
                    .map(|v| dir.join(&v.file).display().to_string()),
                ..head(0)
            };
            match u.json {
                true => write!(out, "{}", json_doc(&h, &r))?,
                false if !quiet => write!(out, "{}", uninstall_text(&r))?,
                false => {}
            }
            Ok(0)
        }
    }
}

/// One file `extract` wrote.
#[derive(serde::Serialize)]
struct Written {
    name: String,
    from: game::Located,
    output: String,
    bytes: usize,
}

fn extract(game: &Game, x: &ExtractArgs, head: Head, quiet: bool) -> Result<i32> {
    let got = list::extract(game, &x.names)?;
    let mut targets: Vec<PathBuf> = Vec::new();
    for e in &got {
        let path = x.output.join(&e.name);
        if !targets.contains(&path) {
            check_target(&path, x.force, None)?;
            targets.push(path);
        }
    }
    std::fs::create_dir_all(&x.output)
        .with_context(|| format!("cannot create {}", x.output.display()))?;
    let mut written = Vec::new();
    for (e, path) in got.iter().zip(&targets) {
        write_atomic(path, &e.bytes, x.force, None)?;
        written.push(Written {
            name: e.name.clone(),
            from: e.from.clone(),
            output: path.display().to_string(),
            bytes: e.bytes.len(),
        });
    }
    let mut out = std::io::stdout().lock();
    if x.json {
        let head = Head {
            output: Some(x.output.display().to_string()),
            ..head
        };
        let body = rigtrip::ops::output::Files::<_, ()> {
            files: &written,
            summary: None,
        };
        write!(out, "{}", json_doc(&head, &body))?;
    } else if !quiet {
        for w in &written {
            writeln!(
                out,
                "wrote {} ({} bytes) from {}",
                w.output,
                w.bytes,
                list::place(&w.from)
            )?;
        }
    }
    Ok(0)
}

fn install_cmd(game: &Game, i: &InstallArgs, head: Head, quiet: bool) -> Result<i32> {
    if i.as_name.is_some() && i.files.len() > 1 {
        bail!("--as names one file: install the others one at a time, or under their own names");
    }
    let mut files = Vec::new();
    for path in &i.files {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let name = match &i.as_name {
            Some(n) => n.clone(),
            None => file_name(path)?,
        };
        let findings = check_findings(&name, &bytes);
        files.push(install::InstallFile {
            path: path.clone(),
            name,
            bytes,
            findings,
        });
    }
    let r = install::install(game, files, i.force)?;
    let mut out = std::io::stdout().lock();
    if i.json {
        let path = game.folder.dir.join(&r.volume.file);
        let bytes = std::fs::metadata(&path).map(|m| m.len() as usize).ok();
        let head = Head {
            output: Some(path.display().to_string()),
            bytes,
            ..head
        };
        write!(out, "{}", json_doc(&head, &r))?;
    } else if !quiet {
        write!(out, "{}", install_text(&r))?;
    }
    Ok(0)
}

/// What `rigtrip check` finds in a file to install, under the name it is installed as (the
/// name decides the player-archive rules: `pl000.pac`): the install's gate. A file the check
/// cannot read is one finding that stops the game; a file that is no game file rigtrip knows is
/// `None`, and the report says it was not checked.
fn check_findings(name: &str, bytes: &[u8]) -> Option<Vec<Finding>> {
    let opts = rigtrip::ops::check::CheckOptions::default();
    match rigtrip::ops::check::check_bytes(Path::new(name), bytes, &opts) {
        Ok(Some(checked)) => Some(checked.findings),
        Ok(None) => None,
        Err(why) => Some(vec![Finding::stops(
            "",
            "the whole file",
            format!("rigtrip check cannot read it: {why}"),
            rigtrip::native::record::Evidence::StructuralConfirmed,
        )]),
    }
}

fn file_name(path: &Path) -> Result<String> {
    match path.file_name() {
        Some(n) => Ok(n.to_string_lossy().into_owned()),
        None => bail!("{}: not a file name", path.display()),
    }
}

fn install_text(r: &install::InstallReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let v = &r.volume;
    for f in &r.files {
        let _ = writeln!(
            s,
            "installed {} as {}:{} ({} bytes){}",
            f.path,
            v.file,
            f.entry,
            f.bytes,
            if f.replaced {
                ", replacing the one installed before"
            } else {
                ""
            }
        );
        for o in &f.overrides {
            let _ = writeln!(s, "  overrides {}", list::place(o));
        }
        if !f.checked {
            let _ = writeln!(s, "  not checked: this build has no `rigtrip check` yet");
        }
        for x in &f.findings {
            let _ = writeln!(
                s,
                "  {}: {}, {}: {}",
                x.severity.name(),
                x.place,
                x.field,
                x.problem
            );
        }
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    let made = if v.new { " (new)" } else { "" };
    let _ = writeln!(
        s,
        "{}{made} holds {} file(s) rigtrip installed",
        v.file, v.entries
    );
    s
}

fn uninstall_text(r: &install::UninstallReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for x in &r.removed {
        let now = match &x.now {
            Some(l) => format!("the game loads {} again", list::place(l)),
            None => "the game has no such file any more".to_string(),
        };
        let _ = writeln!(s, "removed {}: {now}", x.name);
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    if let Some(v) = &r.volume {
        match v.deleted {
            true => {
                let _ = writeln!(s, "deleted {} (rigtrip's volume)", v.file);
            }
            false => {
                let _ = writeln!(
                    s,
                    "{} holds {} file(s) rigtrip installed",
                    v.file, v.entries
                );
            }
        }
    }
    s
}
